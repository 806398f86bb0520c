import { OrderedMap } from "../mod.ts";

const m = OrderedMap.from([["read_file", "builtin"], ["grep", "builtin"], ["read_file", "local"]]);
console.log(m.toArray());
