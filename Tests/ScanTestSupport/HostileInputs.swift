public import Foundation

/// Hostile decoder inputs (PNG bombs, a header-only PGM, truncated videos, a CMYK JPEG, …) made on demand by
/// Tests/Fixtures/make_hostile_inputs.py into a fresh temporary directory, removed when the value is released.
public final class HostileInputs {
    private let directory: TemporaryDirectory
    public var url: URL { directory.url }

    /// Makes the named files (see the script for the list; "ok-videos" makes every complete video).
    public init(_ names: [String]) throws {
        directory = try TemporaryDirectory()
        let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/make_hostile_inputs.py").path
        _ = try runTool("/usr/bin/python3", [script, directory.url.path] + names)
    }

    /// The path of one generated file.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The bytes of one generated file.
    public func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url.appendingPathComponent(name))) }
}
