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
