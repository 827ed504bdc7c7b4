import Foundation
import Testing
import ScanCore
import ScanCapture
import ScanTestSupport
@testable import ScanKit

@Suite struct ParallelDetectorsTests {
    /// Codes and faces read on two threads give exactly what one thread gives, frame by frame.
    @Test func parallelEqualsSequential() throws {
        let dir = try TemporaryDirectory()
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        func run(parallel: Bool) throws -> [[MetadataObject]] {
            var c = OutputConfiguration(metadataObjectTypes: [.qr, .ean13, .face])
            c.models = ModelConfiguration(directory: Fixtures.repositoryRoot.appendingPathComponent("Models").path)
            c.parallelDetectors = parallel
            let output = try MetadataOutput(configuration: c)
            let source = try Y4MSource(path: clip)
            var out: [[MetadataObject]] = []
            while let frame = try source.nextFrame() {
                out.append(try output.process(frame, source: source.info).objects)
            }
            return out
        }
        let sequential = try run(parallel: false)
        let parallel = try run(parallel: true)
        #expect(sequential.count == 45)
        #expect(parallel == sequential)
        #expect(sequential.allSatisfy { $0.contains { $0.type == .face } && $0.contains { $0.type == .ean13 } })
    }
}
