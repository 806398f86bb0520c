/**
 * The tables of options known **not** to run code, read code or change where
 * code comes from, per program (and per subcommand): after a pattern's
 * literal words, an option is approved only when the pattern names it or it
 * is in its program's table (`./options.ts` reads a command's words the way
 * each program's own parser does). A program without a table gets operands
 * only. Each table cites the manual that says why its options run nothing.
 *
 * How an option is written in a table (`spellings`, separated by spaces):
 *
 * | spelling   | the option                                                             |
 * | ---------- | ---------------------------------------------------------------------- |
 * | `-x`       | a short flag (in a cluster too, `-la`)                                 |
 * | `-x=`      | a short option taking a value (`-k2,2`, or the next word)              |
 * | `--name`   | a long flag, exactly (an abbreviation is not approved)                 |
 * | `--name=`  | a long option taking a value (`--name=v`, or the next word)            |
 * | `--name=?` | a long option whose value is optional and only ever `--name=v`         |
 * | `…=path`   | a value that names a local file: one holding `:` is not approved (tar reads `host:file` as a remote archive, run through a remote shell) |
 * | `-#`       | a number as an option (`git log -5`, `head -20`)                       |
 * | `-name`    | (`find` and `word` styles) that exact word; `-name=` takes the next word |
 *
 * Options marked `!` (`!-c=`) are not approved: they are listed only so the
 * reader knows that they take a value when a pattern names them
 * (`Bash(git -c:*)`), so the word after them is not read as a subcommand.
 *
 * Folder `lib/core/policy/` — the tool policy: allowed-tools patterns, the shell grammar, decisions.
 *
 * @module
 */

/** How a program reads its options. */
export type OptionStyle =
  /** getopt_long and its kin: `-abc` clusters, `--long`, `--long=v`, `--long v`. */
  | "getopt"
  /** npm's nopt: any number of leading dashes, `_` for `-`, any case; a name is one word. */
  | "npm"
  /** Go's flag package: one or two dashes, `-name`, `-name=v`, `-name v`; no clusters. */
  | "go"
  /** Whole words (`find -name x`, `test -f x`): a word is an option only as a whole. */
  | "word";

/** One program's (or subcommand's) table. */
export interface OptionTableSpec {
  /** How options are read. */
  readonly style: OptionStyle;
  /** The approved options (see the module's table of spellings). */
  readonly options: string;
  /** Why none of them runs code: the manual cited. */
  readonly manual: string;
  /** Subcommands, by the word that names them, each with its own table. */
  readonly subcommands?: ReadonlyMap<string, OptionTableSpec>;
  /** Whether the first operand must be one of `subcommands` (git, npm): any other is not approved. */
  readonly closed?: boolean;
  /** Whether the first word may be a cluster of options without a dash (`tar czf out.tgz dir`). */
  readonly dashlessFirst?: boolean;
  /**
   * Whether `--` ends the options (the words after it are operands). Default:
   * true for the `getopt` and `npm` styles, false for `go` and `word` (GNU find
   * reads `find -- . -exec …`: `--` ends its own options, not the expression).
   */
  readonly dashDashEnds?: boolean;
  /**
   * Whether the first operand ends the program's own options (an
   * interpreter's script: `python3 fill.py --in x` passes `--in x` to it).
   */
  readonly operandEnds?: boolean;
}

const GIT = "git(1), git-<subcommand>(1) (git 2.39)";

/** Options every git subcommand's table shares: pathspec and output forms. */
const GIT_COMMON = "--quiet -q --verbose -v --no-color --color=? --porcelain";

/** git's log-like output options (git-log(1), "Commit Formatting", "Commit Limiting"). */
const GIT_LOG = [
  GIT_COMMON,
  "-# -n= --max-count= --skip= --since= --after= --until= --before= --author= --committer=",
  "--grep= --all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings",
  "--oneline --pretty=? --format= --abbrev-commit --no-abbrev-commit --abbrev=? --date=",
  "--graph --decorate=? --no-decorate --stat=? --shortstat --numstat --name-only --name-status",
  "-p --patch -s --no-patch -u -U= --unified= --raw --merges --no-merges --first-parent",
  "--all --branches=? --tags=? --remotes=? --reverse --follow -L= -S= -G= --pickaxe-all",
  "--relative-date --no-walk=? --topo-order --date-order --author-date-order --left-right",
  "--cherry-pick --cherry-mark --boundary --simplify-by-decoration --full-history --summary",
  "--dirstat=? --check --word-diff=? --ignore-all-space -w --ignore-space-change -b",
  "--full-diff --no-renames -M=? --find-renames=? -C=? --find-copies=? --diff-filter=",
  "--log-size --no-ext-diff --no-textconv --exit-code -z --reflog -g",
].join(" ");

/** git's diff options (git-diff(1)); never `--ext-diff`, `--textconv` or `--output`. */
const GIT_DIFF = [
  GIT_COMMON,
  "--cached --staged --stat=? --shortstat --numstat --name-only --name-status --summary",
  "-p --patch -u -U= --unified= --raw --no-renames -M=? --find-renames=? -C=? --find-copies=?",
  "--diff-filter= --check --word-diff=? --color-words=? --ignore-all-space -w",
  "--ignore-space-change -b --ignore-blank-lines --exit-code --no-ext-diff --no-textconv",
  "--minimal --patience --histogram --relative=? --no-relative -R --dirstat=? -z --merge-base",
  "--no-index --ignore-cr-at-eol --function-context -W --abbrev=? --full-index --binary",
].join(" ");

const git = (options: string): OptionTableSpec => ({ style: "getopt", options, manual: GIT });

/**
 * git: its own options before the subcommand, and the subcommands that read
 * the repository or record in it with their everyday options. Left out on
 * purpose: `-c`, `--config-env`, `--exec-path`, `-C`, `--git-dir`,
 * `--work-tree` (they choose the configuration and repository, where a pager,
 * an fsmonitor or an alias comes from), `--help` (runs `man`), every
 * subcommand not listed (`config`, `rebase -x`, `bisect run`, `submodule
 * foreach`, `difftool`, aliases, …), and the options that name a program or
 * write a file: `--ext-diff`, `--textconv`, `--output`, `--upload-pack`,
 * `--receive-pack`, `--exec`, `-S`/`--gpg-sign` and `-s`/`-u` on tags (run
 * gpg), `-e`/`--edit` (runs the editor), `--open-files-in-pager`.
 */
const GIT_TABLE: OptionTableSpec = {
  style: "getopt",
  manual: `${GIT}: git's own options here only switch paging off or say how to read pathspecs`,
  options: [
    "--no-pager -P --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs",
    "--icase-pathspecs --no-optional-locks --version",
    "!-c= !-C= !--git-dir= !--work-tree= !--namespace= !--config-env= !--super-prefix= !--attr-source=",
  ].join(" "),
  closed: true,
  subcommands: new Map<string, OptionTableSpec>([
    [
      "status",
      git(
        `${GIT_COMMON} -s --short -b --branch --long -u= --untracked-files=? --ignored=? -z --ahead-behind --no-ahead-behind --renames --no-renames --show-stash`,
      ),
    ],
    ["log", git(GIT_LOG)],
    ["shortlog", git(`${GIT_LOG} -s --summary -e --email -c --committer --group=`)],
    ["show", git(`${GIT_LOG} ${GIT_DIFF}`)],
    ["diff", git(GIT_DIFF)],
    [
      "blame",
      git(
        `${GIT_COMMON} -L= -l -t -s -e -w -M=? -C=? --show-name --show-number --show-email --date= --porcelain --line-porcelain --incremental --root --reverse= --first-parent --since= --abbrev=?`,
      ),
    ],
    [
      "describe",
      git(
        `${GIT_COMMON} --tags --all --long --abbrev=? --always --dirty=? --broken=? --exact-match --contains --match= --exclude= --first-parent --candidates=`,
      ),
    ],
    [
      "rev-parse",
      git(
        `${GIT_COMMON} --abbrev-ref=? --short=? --verify --show-toplevel --show-prefix --show-cdup --git-dir --is-inside-work-tree --is-bare-repository --symbolic --symbolic-full-name --all --branches=? --tags=? --sq --default= --absolute-git-dir`,
      ),
    ],
    [
      "ls-files",
      git(
        `${GIT_COMMON} -c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -z -t --exclude-standard --directory --no-empty-directory --error-unmatch --full-name --abbrev=? --format= -x= --exclude=`,
      ),
    ],
    [
      "show-ref",
      git(
        `${GIT_COMMON} --head --heads --tags --verify --dereference -d --hash=? --abbrev=? --exists`,
      ),
    ],
    [
      "grep",
      git(
        `${GIT_COMMON} -n --line-number -i --ignore-case -w --word-regexp -v --invert-match -l --files-with-matches -L --files-without-match -c --count -e= -E --extended-regexp -F --fixed-strings -P --perl-regexp -G --basic-regexp --cached --untracked --no-index -h -H --full-name --heading --break -A= -B= -C= --context= -# -p --show-function -W --function-context --max-depth= --and --or --not --all-match -o --only-matching -z --null --column -a --text -I --threads=`,
      ),
    ],
    [
      "branch",
      git(
        `${GIT_COMMON} -a --all -r --remotes -l --list --show-current --contains= --no-contains= --merged= --no-merged= --sort= --points-at= --format= --abbrev=? --no-abbrev -d --delete -D -m --move -M -c --copy -C -f --force -t --track=? --no-track -u= --set-upstream-to= --unset-upstream -i --ignore-case --column=? --no-column`,
      ),
    ],
    [
      "tag",
      git(
        `${GIT_COMMON} -a --annotate -m= --message= -F= --file= -l --list -n= -d --delete -f --force --sort= --contains= --no-contains= --merged= --no-merged= --points-at= --format= -i --ignore-case --column=? --no-column --cleanup=`,
      ),
    ],
    [
      "add",
      git(
        `${GIT_COMMON} -A --all --no-all -u --update -n --dry-run -f --force -N --intent-to-add --refresh --ignore-errors --ignore-missing --no-warn-embedded-repo --renormalize --sparse --pathspec-from-file=path --pathspec-file-nul`,
      ),
    ],
    [
      "commit",
      git(
        `${GIT_COMMON} -m= --message= -F=path --file=path -a --all --amend --no-edit -n --no-verify --allow-empty --allow-empty-message -s --signoff --no-signoff --author= --date= --cleanup= --reset-author --only -o --include -i --dry-run --short --long --branch --no-status --status -C= --reuse-message= --fixup= --squash= --trailer= --no-post-rewrite -t=path --template=path --pathspec-from-file=path --pathspec-file-nul --untracked-files=? -u=?`,
      ),
    ],
    [
      "checkout",
      git(
        `${GIT_COMMON} -b= -B= -t --track=? --no-track --detach -f --force -m --merge --ours --theirs --orphan= -p --patch --no-guess --guess --ignore-other-worktrees --overwrite-ignore --no-overwrite-ignore --progress --no-progress --conflict= --pathspec-from-file=path --pathspec-file-nul`,
      ),
    ],
    [
      "switch",
      git(
        `${GIT_COMMON} -c= --create= -C= --force-create= -d --detach -t --track=? --no-track --guess --no-guess -f --force --discard-changes -m --merge --orphan= --conflict= --progress --no-progress --ignore-other-worktrees`,
      ),
    ],
    [
      "push",
      git(
        `${GIT_COMMON} -u --set-upstream --tags --follow-tags --all --branches --mirror -n --dry-run -f --force --force-with-lease=? --force-if-includes --atomic --no-verify -d --delete --prune --progress --no-progress -4 --ipv4 -6 --ipv6 -o= --push-option=`,
      ),
    ],
    [
      "pull",
      git(
        `${GIT_COMMON} --ff --no-ff --ff-only --rebase=? --no-rebase --autostash --no-autostash --stat -n --no-stat --squash --no-squash --commit --no-commit --no-edit --tags --no-tags --all --prune -p --depth= --unshallow --progress --no-progress --no-verify -4 --ipv4 -6 --ipv6`,
      ),
    ],
    [
      "fetch",
      git(
        `${GIT_COMMON} --all --prune -p --prune-tags -P --tags -t --no-tags -n --depth= --deepen= --shallow-since= --unshallow --dry-run --force -f --progress --no-progress --multiple --atomic -j= --jobs= --append -a -4 --ipv4 -6 --ipv6 --refetch --no-write-fetch-head --write-fetch-head --set-upstream`,
      ),
    ],
  ]),
};

const NPM = "npm-run-script(1), npm-test(1), npm-config(7) (npm 11)";
/** npm's everyday options: log levels and whether a missing script is an error. */
const NPM_OPTIONS = "--silent -s --quiet -q --loglevel= --if-present --ignore-scripts --color=?";

const npm = (manual: string, style: OptionStyle): OptionTableSpec => {
  const runner: OptionTableSpec = { style, options: NPM_OPTIONS, manual };
  return {
    style,
    options: NPM_OPTIONS,
    manual: `${manual}: only \`test\` and \`run\`; the options say how much to log; never` +
      " `--script-shell`, `--node-options`, `-c`/`--call`, `--prefix`, `-w`/`--workspace`" +
      " (a shell, node's own options, a command, or another package's scripts)",
    closed: true,
    subcommands: new Map([
      ["test", runner],
      ["t", runner],
      ["tst", runner],
      ["run", runner],
      ["run-script", runner],
      ["rum", runner],
      ["urn", runner],
    ]),
  };
};

const COREUTILS = "GNU coreutils 9.1 manual";

const TAR_SPEC: OptionTableSpec = {
  style: "getopt",
  dashlessFirst: true,
  manual: "GNU tar 1.34 manual: these create, list and extract archives with the built-in" +
    " compressors (which tar runs as helpers: gzip, bzip2, xz, zstd); never -I," +
    " --use-compress-program, --to-command, --checkpoint-action, --info-script," +
    " --new-volume-script, --rsh-command, -F, and no archive named host:file (a remote shell)",
  options: [
    "-c --create -x --extract --get -t --list -r --append -u --update -d --diff --compare",
    "-f=path --file=path -C= --directory= -v --verbose -z --gzip --gunzip --ungzip",
    "-j --bzip2 -J --xz --zstd -a --auto-compress -k --keep-old-files --keep-newer-files",
    "--skip-old-files --overwrite --no-overwrite-dir -p --preserve-permissions --same-permissions",
    "--no-same-owner --no-same-permissions --strip-components= --exclude= --exclude-vcs",
    "--exclude-vcs-ignores --wildcards --no-wildcards --anchored --no-anchored -h --dereference",
    "--totals=? -O --to-stdout -m --touch --numeric-owner --owner= --group= --mode= --mtime=",
    "--sort= --force-local -W --verify -b= --blocking-factor= --format= -H= --null",
    "-T=path --files-from=path -X=path --exclude-from=path --one-file-system --no-recursion --recursion",
  ].join(" "),
};

const PYTHON: OptionTableSpec = {
  style: "getopt",
  manual: "python(1): `-m pytest` only; the words after a script are the script's own" +
    " (a script approved by name is the program itself: it runs what it runs)",
  options: "",
  operandEnds: true,
  subcommands: new Map<string, OptionTableSpec>([["-m", {
    style: "getopt",
    manual: "python(1) -m",
    options: "",
    closed: true,
    subcommands: new Map<string, OptionTableSpec>([["pytest", {
      style: "getopt",
      manual: "pytest --help (pytest 8): selection and reporting (never -p, -c," +
        " --rootdir, --confcutdir, --pdbcls, -o, which load plugins, configuration or code)",
      options: [
        "-q --quiet -v --verbose -x --exitfirst -k= -m= --maxfail= -s --capture= --tb=",
        "-r= -l --showlocals --lf --last-failed --ff --failed-first --nf --new-first",
        "--sw --stepwise --co --collect-only --disable-warnings --no-header --no-summary",
        "--durations= --strict-markers -W= --color= --ignore=path --deselect= -n=",
      ].join(" "),
    }]]),
  }]]),
};

/**
 * The tables, by program name (the last path segment of the first word).
 *
 * @example
 * ```ts
 * import { OPTION_TABLES } from "./option_tables.ts";
 * import { assert } from "../_assert.ts";
 *
 * assert.ok(OPTION_TABLES.get("sort")!.options.includes("-k="));
 * assert.ok(!OPTION_TABLES.get("sort")!.options.includes("--compress-program"));
 * ```
 */
export const OPTION_TABLES: ReadonlyMap<string, OptionTableSpec> = new Map<
  string,
  OptionTableSpec
>([
  ["git", GIT_TABLE],
  ["npm", npm(NPM, "npm")],
  ["pnpm", npm("pnpm run(1), pnpm test(1) (nopt, as npm)", "npm")],
  ["yarn", npm("yarn run(1), yarn test(1)", "getopt")],
  ["ls", {
    style: "getopt",
    manual: `${COREUTILS}, "ls invocation": options choose what is listed and how`,
    options: [
      "-a --all -A --almost-all -b --escape -B --ignore-backups -c -C -d --directory -F --classify=?",
      "-f -g -G --no-group -h --human-readable --si -H -i --inode -I= --ignore= --hide= -k",
      "--kibibytes -l -L --dereference -m -n --numeric-uid-gid -N --literal -o -p -q -Q",
      "--quote-name -r --reverse -R --recursive -s --size -S -t -T= --tabsize= -u -U -v -w=",
      "--width= -x -X -Z --context -1 --color=? --sort= --time= --time-style= --format=",
      "--full-time --group-directories-first --block-size= --indicator-style= --quoting-style=",
    ].join(" "),
  }],
  ["cat", {
    style: "getopt",
    manual: `${COREUTILS}, "cat invocation": options change how lines are shown`,
    options:
      "-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting",
  }],
  ["head", {
    style: "getopt",
    manual: `${COREUTILS}, "head invocation": how much to print`,
    options: "-# -n= --lines= -c= --bytes= -q --quiet --silent -v --verbose -z --zero-terminated",
  }],
  ["tail", {
    style: "getopt",
    manual: `${COREUTILS}, "tail invocation": how much to print (never -f/-F: they wait forever)`,
    options: "-# -n= --lines= -c= --bytes= -q --quiet --silent -v --verbose -z --zero-terminated",
  }],
  ["wc", {
    style: "getopt",
    manual: `${COREUTILS}, "wc invocation": what to count`,
    options:
      "-c --bytes -m --chars -l --lines -L --max-line-length -w --words --total= -z --zero-terminated",
  }],
  ["sort", {
    style: "getopt",
    manual: `${COREUTILS}, "sort invocation": keys and orders (never --compress-program,` +
      " which names a program, nor -T, --files0-from, --random-source)",
    options: [
      "-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort",
      "-h --human-numeric-sort -i --ignore-nonprinting -M --month-sort -n --numeric-sort -R",
      "--random-sort -r --reverse -V --version-sort -c --check=? -C -k= --key= -m --merge",
      "-o= --output= -s --stable -S= --buffer-size= -t= --field-separator= -u --unique",
      "-z --zero-terminated --parallel= --debug --sort=",
    ].join(" "),
  }],
  ["uniq", {
    style: "getopt",
    manual: `${COREUTILS}, "uniq invocation": which lines to keep and how to compare them`,
    options:
      "-c --count -d --repeated -D --all-repeated=? -f= --skip-fields= --group=? -i --ignore-case -s= --skip-chars= -u --unique -w= --check-chars= -z --zero-terminated",
  }],
  ["diff", {
    style: "getopt",
    manual: "GNU diffutils 3.8 manual: output formats and what to ignore" +
      " (never -l/--paginate, which runs pr)",
    options: [
      "-q --brief -s --report-identical-files -c -C= --context=? -u -U= --unified=? -e --ed -n",
      "--rcs -y --side-by-side -W= --width= --left-column --suppress-common-lines -p",
      "--show-c-function -F= --show-function-line= --label= -t --expand-tabs -T --initial-tab",
      "-r --recursive --no-dereference -N --new-file --unidirectional-new-file --ignore-file-name-case",
      "-x= --exclude= -X=path --exclude-from=path -S= --starting-file= -i --ignore-case -E",
      "--ignore-tab-expansion -Z --ignore-trailing-space -b --ignore-space-change -w",
      "--ignore-all-space -B --ignore-blank-lines -I= --ignore-matching-lines= -a --text",
      "--strip-trailing-cr -d --minimal --color=? --normal --speed-large-files",
    ].join(" "),
  }],
  ["grep", {
    style: "getopt",
    manual: "GNU grep 3.8 manual: patterns, files and output",
    options: [
      "-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -e= --regexp=",
      "-f=path --file=path -i --ignore-case --no-ignore-case -v --invert-match -w --word-regexp",
      "-x --line-regexp -c --count --color=? --colour=? -L --files-without-match -l",
      "--files-with-matches -m= --max-count= -o --only-matching -q --quiet --silent -s",
      "--no-messages -b --byte-offset -H --with-filename -h --no-filename --label= -n",
      "--line-number -T --initial-tab -Z --null -A= --after-context= -B= --before-context=",
      "-C= --context= -# -a --text --binary-files= -I -D= --devices= -d= --directories=",
      "--exclude= --exclude-from=path --exclude-dir= --include= -r --recursive -R",
      "--dereference-recursive --line-buffered -U --binary -z --null-data",
    ].join(" "),
  }],
  ["rg", {
    style: "getopt",
    manual: "rg(1), ripgrep 13: searching and output (never --pre, --pre-glob or -z/" +
      "--search-zip, which run programs, nor --hostname-bin)",
    options: [
      "-e= --regexp= -f=path --file=path -F --fixed-strings -i --ignore-case -S --smart-case",
      "-s --case-sensitive -w --word-regexp -x --line-regexp -v --invert-match -n --line-number",
      "-N --no-line-number -c --count --count-matches -l --files-with-matches",
      "--files-without-match --files -o --only-matching -A= --after-context= -B=",
      "--before-context= -C= --context= -m= --max-count= -g= --glob= --iglob= -t= --type=",
      "-T= --type-not= --type-list --hidden --no-ignore --no-ignore-vcs -u --unrestricted",
      "-L --follow -H --with-filename --no-filename --heading --no-heading --json --vimgrep",
      "--color= --colors= -p --pretty -q --quiet -U --multiline --multiline-dotall --sort=",
      "--sortr= --max-depth= -d= --max-filesize= --column -b --byte-offset -0 --null -M=",
      "--max-columns= --stats -P --pcre2 --trim -r= --replace= --passthru -a --text",
    ].join(" "),
  }],
  ["find", {
    style: "word",
    manual: "GNU findutils 4.9 manual: tests and printing to the standard output (never" +
      " -exec, -execdir, -ok, -okdir, nor -fprint*, -fls or -delete)",
    options: [
      "-H -L -P -name= -iname= -path= -ipath= -wholename= -iwholename= -regex= -iregex=",
      "-regextype= -type= -xtype= -size= -empty -newer= -anewer= -cnewer= -mtime= -mmin=",
      "-atime= -amin= -ctime= -cmin= -perm= -user= -group= -uid= -gid= -nouser -nogroup",
      "-links= -inum= -samefile= -readable -writable -executable -lname= -ilname= -true -false",
      "-maxdepth= -mindepth= -depth -d -mount -xdev -follow -noleaf -daystart -ignore_readdir_race",
      "-print -print0 -printf= -ls -prune -quit -not -a -and -o -or",
    ].join(" "),
  }],
  ["tar", TAR_SPEC],
  ["zip", {
    style: "getopt",
    // Info-ZIP's own parser: `--` is not relied on to end the options.
    dashDashEnds: false,
    manual: "zip(1), Info-ZIP Zip 3.0: what to add and how to compress (never -T, which runs" +
      " unzip, nor -TT/--unzip-command, which names the command; a cluster holds only the" +
      " letters here, none of which starts one of zip's two-letter options)",
    options: [
      "-r --recurse-paths -q --quiet -j --junk-paths -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -X",
      "--no-extra -y --symlinks -u --update -f --freshen -D --no-dir-entries -x= --exclude=",
      "-i= --include=",
    ].join(" "),
  }],
  ["unzip", {
    style: "getopt",
    dashDashEnds: false,
    manual: "unzip(1), Info-ZIP UnZip 6.0: list, test and extract",
    options: "-l -v -t -q -o -n -j -d= -x= -p -C -L",
  }],
  ["jq", {
    style: "getopt",
    dashDashEnds: false,
    manual: "jq 1.6 manual: output forms and named arguments (never -f/--from-file, which" +
      " reads the program from a file, nor -L, which chooses where modules come from)",
    options: [
      "-r --raw-output -j --join-output -c --compact-output -n --null-input -s --slurp -e",
      "--exit-status -S --sort-keys -a --ascii-output -C --color-output -M --monochrome-output",
      "--tab --indent= --arg= --argjson= --slurpfile= --rawfile= --args --jsonargs --raw-input -R",
      "--seq --stream",
    ].join(" "),
  }],
  ["go", {
    style: "go",
    manual: "go help test, go help testflag (Go 1.22)",
    options: "",
    closed: true,
    subcommands: new Map<string, OptionTableSpec>([["test", {
      style: "go",
      manual: "go help testflag: which tests run and how they report (never -exec, -toolexec," +
        " -ldflags/-gcflags/-asmflags (an external linker or assembler), -overlay, -modfile," +
        " -C, -o, -c)",
      options: [
        "-run= -skip= -v -count= -cover -covermode= -coverpkg= -short -timeout= -bench=",
        "-benchmem -benchtime= -failfast -json -list= -parallel= -cpu= -p= -race -shuffle=",
        "-vet= -tags= -trimpath -mod= -x -n",
      ].join(" "),
    }]]),
  }],
  ["cargo", {
    style: "getopt",
    manual: "cargo(1), cargo-test(1)",
    options: "-q --quiet -v --verbose --color= --locked --offline --frozen",
    closed: true,
    subcommands: new Map<string, OptionTableSpec>([["test", {
      style: "getopt",
      manual: "cargo-test(1): which targets and features are built and tested (never --config," +
        " -Z, --manifest-path, --target, which choose where code and runners come from)",
      options: [
        "-q --quiet -v --verbose --release -r --lib --bins --bin= --tests --test= --examples",
        "--example= --benches --bench= --all-targets --doc --no-run --no-fail-fast -p=",
        "--package= --workspace --all --exclude= -F= --features= --all-features",
        "--no-default-features -j= --jobs= --locked --offline --frozen --color= --profile=",
        "--message-format= --timings=? --future-incompat-report",
      ].join(" "),
    }]]),
  }],
  ["python", PYTHON],
  ["python3", PYTHON],
  ["mkdir", {
    style: "getopt",
    manual: `${COREUTILS}, "mkdir invocation": parents, mode and messages`,
    options: "-p --parents -v --verbose -m= --mode=",
  }],
  ["date", {
    style: "getopt",
    manual:
      `${COREUTILS}, "date invocation": which time and how it is shown (never -s, which sets it)`,
    options:
      "-u --utc --universal -d= --date= -I=? --iso-8601=? -R --rfc-email --rfc-3339= -r=path --reference=path",
  }],
  ["echo", { style: "getopt", manual: "bash(1), echo", options: "-n -e -E", dashDashEnds: false }],
  ["cd", { style: "getopt", manual: "bash(1), cd", options: "-L -P" }],
  ["pwd", { style: "getopt", manual: "bash(1), pwd", options: "-L -P" }],
  ["test", {
    style: "word",
    manual: "bash(1), CONDITIONAL EXPRESSIONS: tests of files and strings (never -v or -R," +
      " which evaluate an array subscript)",
    options: [
      "-a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N -O -S -z -n -o",
      "-eq -ne -lt -le -gt -ge -nt -ot -ef",
    ].join(" "),
  }],
]);
