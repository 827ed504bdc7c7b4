import Foundation

/// Temporary files for tests.
public enum FileManagerTemp {
    /// A new empty directory under the system temp folder.
    public static func make() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scand-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
