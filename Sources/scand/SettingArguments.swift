import ArgumentParser
import ScanCore

extension NameSpecification {
    /// The long flag a ``Setting`` declares: `@Option(name: .setting(.scanDensity), …)`.
    static func setting(_ setting: Setting) -> NameSpecification {
        guard let flag = setting.flag else {
            preconditionFailure("\(setting.key) has no flag: it is a config key only")
        }
        return .customLong(flag)
    }
}

extension ArgumentHelp {
    /// The help text and value name a ``Setting`` declares: `@Option(…, help: .setting(.scanDensity))`.
    static func setting(_ setting: Setting) -> ArgumentHelp {
        ArgumentHelp(setting.help, valueName: setting.valueName)
    }
}

/// Checks a value against the bounds `setting` declares.
/// - Throws: `ScanError.invalidArgument` naming the flag: `--client-queue must be 1...1000000, got 0`.
func checked(_ setting: Setting, _ value: Int) throws {
    do { try setting.check(value) } catch { throw ScanError.invalidArgument(error.description) }
}

/// Checks a value against the bounds `setting` declares.
/// - Throws: `ScanError.invalidArgument` naming the flag.
func checked(_ setting: Setting, _ value: Double) throws {
    do { try setting.check(value) } catch { throw ScanError.invalidArgument(error.description) }
}

/// Checks a flag's value against the bounds `setting` declares, in a `validate()` (a usage error).
/// - Throws: `ValidationError` naming the flag: `--http-max-fps must be 0...1000 (0: no cap), got 2000.0`.
func usage(_ setting: Setting, _ value: Double) throws {
    do { try setting.check(value) } catch { throw ValidationError(error.description) }
}
