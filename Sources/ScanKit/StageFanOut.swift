import Dispatch
import ScanCore

/// What one stage did with one frame: its result or error, and the seconds it took.
struct StageRun {
    var result: Result<StageResult, any Error>
    var seconds: Double
}

/// Runs the detector stages on one frame: each on its own thread when `parallel` and there are several (two
/// cores: codes and faces at the same time), otherwise one after another. Each stage is used by one thread
/// only. The runs come back in the stages' order.
func runStages(_ stages: [any DetectorStage], on frame: Frame, context: StageContext, parallel: Bool) -> [StageRun] {
    @Sendable func run(_ stage: any DetectorStage) -> StageRun {
        let started = MonotonicInstant.now
        let result = Result { try stage.detect(frame, context: context) }
        return StageRun(result: result, seconds: started.elapsed.inSeconds)
    }
    guard parallel, stages.count > 1 else { return stages.map(run) }
    let cells = stages.map(StageCell.init)
    DispatchQueue.concurrentPerform(iterations: cells.count) { i in
        cells[i].run = run(cells[i].stage)
    }
    return cells.map { $0.run! }
}

/// One stage and its run on the current frame, handed to one thread of ``runStages(_:on:context:parallel:)``.
private final class StageCell: @unchecked Sendable {
    // Invariant for @unchecked Sendable: each cell is used by one thread of `concurrentPerform` (the one whose
    // index is the cell's), which alone calls `stage` and writes `run`; `concurrentPerform` returns after every
    // thread, which orders those writes before the caller reads `run`.
    let stage: any DetectorStage
    var run: StageRun?

    init(_ stage: any DetectorStage) { self.stage = stage }
}
