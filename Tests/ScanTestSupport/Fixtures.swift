public import Foundation

/// Locates the generated test fixtures (Tests/Fixtures/generated, made by Tests/Fixtures/make-fixtures.py).
public enum Fixtures {
    /// The repository root (two levels above this file's folder).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let directory: URL = repositoryRoot.appendingPathComponent("Tests/Fixtures/generated")

    /// The path of a generated fixture. Fails loudly (not a skip) when fixtures were not generated.
    public static func path(_ name: String) -> String {
        let p = directory.appendingPathComponent(name).path
        precondition(FileManager.default.fileExists(atPath: p),
                     "fixture \(name) missing: run Tests/Fixtures/make-fixtures.py (scripts/test does)")
        return p
    }

    public static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// manifest.json as a dictionary.
    public static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("manifest.json")))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// The manifest entry for a generated file, with string values only.
    public static func entry(_ name: String) throws -> [String: String] {
        let files = try manifest()["files"] as! [String: Any]
        let e = files[name] as! [String: Any]
        return e.compactMapValues { $0 as? String }
    }

    /// Decodes a hex string into bytes.
    public static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }
}
