"""Fill a PDF form (an example: skillset reads this, never runs it)."""
import sys


def fill(fields: dict[str, str]) -> None:
    for name, value in fields.items():
        print(f"{name} = {value}")


if __name__ == "__main__":
    fill(dict(arg.split("=", 1) for arg in sys.argv[1:]))
