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

    /// The entries of `directory/cases.json`, running `script` (a path under the repository, with
    /// `/usr/bin/python3`, Debian's packages only) first when the set is missing. The set is written to a
    /// temporary folder and moved into place, so concurrent test processes never see half a set.
    /// `needs` names the packages the script uses, for the failure message.
    public static func generatedCases(in directory: URL, script: String, needs: String) -> [[String: Any]] {
        let manifest = directory.appendingPathComponent("cases.json")
        if !FileManager.default.fileExists(atPath: manifest.path) {
            let tmp = directory.deletingLastPathComponent()
                .appendingPathComponent("\(directory.lastPathComponent).tmp-\(getpid())")
            let p: Process
            do {
                p = try TestProcess.start("/usr/bin/python3", [repositoryRoot.appendingPathComponent(script).path, tmp.path],
                                          environment: ["PYTHONNOUSERSITE": "1", "PATH": "/usr/bin:/bin"],
                                          stdout: .inherited, stderr: .inherited)
            } catch { preconditionFailure("cannot run \(script): \(error)") }
            p.waitUntilExit()
            precondition(p.terminationStatus == 0, "\(script) failed (needs \(needs))")
            try? FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            if rename(tmp.path, directory.path) != 0 { try? FileManager.default.removeItem(at: tmp) } // another process won
        }
        guard let data = FileManager.default.contents(atPath: manifest.path),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            preconditionFailure("\(manifest.path) unreadable: run /usr/bin/python3 \(script)")
        }
        return list
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
