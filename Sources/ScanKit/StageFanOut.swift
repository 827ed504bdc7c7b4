import ScanCore

/// What one stage did with one frame: its result or error, and the seconds it took.
struct StageRun {
    var result: Result<StageResult, any Error>
    var seconds: Double
}

/// Runs the detector stages on one frame: each on its own thread when `parallel` and there are several (two
/// cores: codes and faces at the same time; ``concurrently(_:)``), otherwise one after another. Each stage is used
/// by one thread only. The runs come back in the stages' order.
func runStages(_ stages: [any DetectorStage], on frame: Frame, context: StageContext, parallel: Bool) -> [StageRun] {
    func run(_ stage: any DetectorStage) -> StageRun {
        let started = MonotonicInstant.now
        let result = Result { try stage.detect(frame, context: context) }
        return StageRun(result: result, seconds: started.elapsed.inSeconds)
    }
    guard parallel else { return stages.map(run) }
    return concurrently(stages.map { stage in { run(stage) } })
}
