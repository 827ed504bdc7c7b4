import Foundation
import Testing
import ScanCore
import ScanCapture
import ScanTestSupport
@testable import ScanKit

/// The detector seam (`DetectorStage`): a stage the library does not register runs beside the real code and
/// face stages, on its own thread, and what it finds, its presence types, its timing and its errors reach the
/// frame's result like theirs.
@Suite struct DetectorStageTests {
    /// A stage reporting one fixed object per frame (or failing on a chosen frame), and which thread it ran on.
    final class MarkerStage: DetectorStage {
        let name = "marker"
        var failOnFrame: Int?
        var threads: Set<String> = []
        var presenceTypes: Set<MetadataObjectType> { [.dataMatrix] }
        func detect(_ frame: Frame, context: StageContext) throws -> StageResult {
            threads.insert(Thread.isMainThread ? "main" : "\(pthread_self())")
            if frame.index == failOnFrame { throw ScanError.detector("marker failed on frame \(frame.index)") }
            let box = NormalizedRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1)
            return StageResult(objects: [
                MetadataObject(type: .dataMatrix, bounds: box, corners: [], stringValue: "marker \(frame.index)")
            ])
        }
    }

    func configuration(parallel: Bool) -> OutputConfiguration {
        var c = OutputConfiguration(metadataObjectTypes: [.qr, .ean13, .face])
        c.models = ModelConfiguration(directory: Fixtures.repositoryRoot.appendingPathComponent("Models").path)
        c.parallelDetectors = parallel
        return c
    }

    @Test("a third stage's objects come after the codes' and faces', its presence types and timing are the output's, its error fails the frame")
    func thirdStage() throws {
        let dir = try TemporaryDirectory()
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool(
            "/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        for parallel in [false, true] {
            let c = configuration(parallel: parallel)
            let plain = try MetadataOutput(configuration: c)
            let marker = MarkerStage()
            marker.failOnFrame = 5
            let output = MetadataOutput(
                configuration: c, stages: try MetadataOutput.makeStages(c, continuing: nil) + [marker])
            #expect(output.stages.map(\.name) == ["codes", "faces", "marker"])
            #expect(output.presenceTypes == [.face, .dataMatrix])
            let source = try Y4MSource(path: clip)
            var frames = 0
            var found: Set<MetadataObjectType> = []
            while let frame = try source.nextFrame(), frame.index < 10 {
                let expected = try plain.process(frame, source: source.info).objects
                found.formUnion(expected.map(\.type))
                guard frame.index != 5 else {
                    #expect(throws: ScanError.detector("marker failed on frame 5")) {
                        try output.processFrame(frame, source: source.info)
                    }
                    continue
                }
                let result = try output.processFrame(frame, source: source.info)
                #expect(Array(result.event.objects.dropLast()) == expected)
                #expect(result.event.objects.last?.stringValue == "marker \(frame.index)")
                #expect(result.timings.seconds.keys.sorted() == ["codes", "faces", "marker"])
                #expect(result.timings.barcode > 0 && result.timings.face > 0)
                frames += 1
            }
            #expect(frames == 9)
            // The codes and faces were there to compare: the clip's faces and its EAN-13.
            #expect(found.isSuperset(of: [.face, .ean13]))
        }
    }

    @Test("runStages runs each stage once per frame, in parallel when asked and there are several, results in stage order")
    func fanOut() throws {
        let stages = (0..<3).map { _ in MarkerStage() }
        let frame = Frame(luma: LumaPlane(width: 8, height: 8, bytes: [UInt8](repeating: 0, count: 64)), index: 7, time: 0)
        let context = StageContext(source: SourceInfo(name: "x"))
        let runs = runStages(stages, on: frame, context: context, parallel: true)
        #expect(runs.count == 3)
        for run in runs { #expect(try run.result.get().objects.map(\.stringValue) == ["marker 7"]) }
        #expect(stages.allSatisfy { $0.threads.count == 1 })
        let sequential = runStages(stages, on: frame, context: context, parallel: false)
        #expect(sequential.count == 3 && sequential.allSatisfy { $0.seconds >= 0 })
    }
}
