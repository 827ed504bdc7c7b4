import ArgumentParser
import ScanCore
import ScanRun

/// What the command line asks for before ArgumentParser runs the command: help only when it was asked for,
/// and an unknown dash argument (often a file name that begins with `-`, from a shell glob) as a usage error
/// on stderr that says how to name such a file.
///
/// ArgumentParser reads `-dash.png` as the short flags `-d -a -s -h …`, and the `-h` in it prints the whole
/// help on stdout with status 0: `scand scan *` in a folder holding `-dash.png` would succeed silently. And
/// a command's own validation runs before unknown options are reported, so `scand scan -x.png` would say
/// "no inputs". Every dash argument is therefore checked against the option names the command's help lists.
enum CommandLineCheck {
    /// The arguments before `--` (after it everything is an operand).
    static func options(_ arguments: [String]) -> ArraySlice<String> {
        arguments.prefix { $0 != "--" }
    }

    /// True when help was asked for in so many words: `-h`, `--help`, or the `help` subcommand.
    static func helpAsked(_ arguments: [String]) -> Bool {
        arguments.first == "help" || options(arguments).contains { $0 == "-h" || $0 == "--help" }
    }

    /// The subcommand named on the command line (its type and `scand NAME`), else nil.
    static func subcommand(_ arguments: [String]) -> (type: any ParsableCommand.Type, name: String)? {
        guard let word = options(arguments).first(where: { !$0.hasPrefix("-") }) else { return nil }
        return Scand.configuration.subcommands.first { $0.configuration.commandName == word }.map {
            ($0, "scand " + word)
        }
    }

    /// The option names (`--name`, `-n`) the help of `command` (nil: the root) lists, hidden ones included.
    static func knownNames(_ command: (any ParsableCommand.Type)?) -> Set<String> {
        let help =
            command.map { Scand.helpMessage(for: $0, includeHidden: true, columns: 10_000) }
            ?? Scand.helpMessage(includeHidden: true, columns: 10_000)
        var names: Set<String> = [
            "-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help",
        ]
        for word in help.split(whereSeparator: { " ,[]()<>=|/\n\t".contains($0) })
        where word.hasPrefix("-") && word.count > 1 {
            names.insert(String(word.prefix { $0.isLetter || $0.isNumber || $0 == "-" }))
        }
        return names
    }

    /// The first argument before `--` that begins with `-` and is none of `command`'s options: not a listed
    /// name (`--name=value` by its name), nor a cluster of listed one-letter flags without `h`.
    static func unknownDashArgument(_ arguments: [String], command: (any ParsableCommand.Type)?) -> String? {
        let candidates = options(arguments).filter { $0.hasPrefix("-") && $0 != "-" }
        guard !candidates.isEmpty else { return nil }
        let known = knownNames(command)
        return candidates.first { argument in
            if argument.hasPrefix("--") {
                return !known.contains(String(argument.prefix { $0 != "=" }))
            }
            if known.contains(argument) { return false }
            let letters = argument.dropFirst()
            return letters.contains("h") || !letters.allSatisfy { known.contains("-\($0)") }
        }
    }

    /// `scand run --presence value|instance` (and `--presence=…`) as `--presence-by …`: `--presence` is also the
    /// on/off flag (`--[no-]presence`), and ArgumentParser gives a flag no value.
    static func presenceByValue(_ arguments: [String]) -> [String] {
        guard subcommand(arguments)?.name == "scand run" else { return arguments }
        let modes = Set(PresenceBy.allCases.map(\.rawValue))
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        var out = arguments
        for i in arguments.indices where i < end {
            if arguments[i] == "--presence", i + 1 < end, modes.contains(arguments[i + 1]) {
                out[i] = "--presence-by"
            } else if arguments[i].hasPrefix("--presence="), modes.contains(String(arguments[i].dropFirst(11))) {
                out[i] = "--presence-by=" + arguments[i].dropFirst(11)
            }
        }
        return out
    }

    /// The hint given with every unknown dash argument.
    static func hint(_ argument: String) -> String {
        "A name that begins with '-' is read as an option: write ./\(argument) (or put '--' before scand scan's input files: scand scan -- \(argument))."
    }

    /// Parses `arguments` and runs the command as `AsyncParsableCommand.main()` does, except that an unknown
    /// dash argument is a usage error (stderr, status 64) saying how to name a file that begins with `-`,
    /// and help is printed (stdout, status 0) only when asked for.
    static func main(_ arguments: [String]) async -> Never {
        let arguments = presenceByValue(arguments)
        let sub = subcommand(arguments)
        let name = sub?.name ?? "scand"
        let usage = "Usage: " + (sub.map { Scand.usageString(for: $0.type) } ?? Scand.usageString())
        if !helpAsked(arguments), let argument = unknownDashArgument(arguments, command: sub?.type) {
            writeStderr(
                "Error: \(name): unknown option '\(argument)'\n\(hint(argument))\n\(usage)\n  See '\(name) --help' for more information.\n"
            )
            Scand.exit(withError: ExitCode(ExitStatus.usage))
        }
        do {
            var command = try Scand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Scand.exit()
        } catch {
            let flags = options(arguments)
            if !(error is ExitCode), Scand.exitCode(for: error) == .success, !helpAsked(arguments),
                Scand.fullMessage(for: error).contains("USAGE:"),
                !flags.contains(where: {
                    $0 == "--version" || $0.hasPrefix("--experimental") || $0.hasPrefix("--generate")
                })
            {
                // Help that nobody asked for (no subcommand given): a usage error, on stderr.
                writeStderr(
                    "Error: \(name): missing subcommand\n\(usage)\n  See '\(name) --help' for more information.\n")
                Scand.exit(withError: ExitCode(ExitStatus.usage))
            }
            Scand.exit(withError: error)
        }
    }
}
