internal import Foundation
internal import ScanCore

/// One reading step of a still image: image `index` of `pass` (``PassReader/passImages(_:base:)``), or, past the
/// downscaled pass's images, a level of the ladder for 2-D codes (made when it is read).
struct StillStep {
    var pass: ReaderPass
    var index: Int
    /// The image read; nil for a ladder level not made yet.
    var image: PassImage?
    /// The ladder level's exponent (``StillReader/matrixLadderImage(exponent:base:)``); nil for a pass image.
    var ladderExponent: Double?

    /// The step named as the confirmation of transformed reads names its source ("downscaled/3").
    var source: String { pass.rawValue + "/\(index)" }

    /// The step with its image made.
    func with(_ image: PassImage) -> StillStep {
        var s = self
        s.image = image
        return s
    }
}

/// What one step read, before the confirmation of transformed reads (``StillReader/stepReads(_:base:frameSize:)``).
struct StepReads {
    var found: [MetadataObject]
    /// zxing-cpp's quick look on the plain pass (formats zbar cannot read), when zbar read the frame.
    var extra: [MetadataObject] = []
    var engine: BarcodeEngine
}

extension StillReader {
    /// Reads the steps of `passes` (everything after the plain pass) with two readers at once, this one and
    /// ``helper``, and returns what reading them one after another returns.
    ///
    /// Each reader takes the next step in order (``StillStepQueue``) and reads it (``stepReads(_:base:frameSize:)``:
    /// all of a step's work but the confirmation); a step that reads something, or fails, stops the taking of
    /// later steps. Then this reader confirms the steps read so far in order (the confirmation remembers what
    /// earlier steps read), and returns at the first with a confirmed read (or throws at the first that failed),
    /// or else lets the readers go on after the stop. Steps read past the one returned at are thrown away: at
    /// most one step's work per reader. zbar's failures count as they would in order: those of the steps up to
    /// the one returned at.
    func readInParallel(passes: [ReaderPass], ladder: [Double], base: PassImage, frameSize: PixelSize) throws
        -> BarcodeRead
    {
        let plainFailure = zbarFailure
        var failure: String?
        defer { zbarFailure = plainFailure ?? failure }
        let queue = StillStepQueue(passes: passes, ladder: ladder, base: base, frameSize: frameSize)
        var pending = PendingReads()
        var next = 0
        while true {
            // The helper on a thread of its own (not Dispatch's pool, which other work may hold: the helper would
            // then start only once this reader had read every step), this reader on the calling thread.
            let helped = Locked(0)
            let helper = HandOver(promisingUnusedByCaller: self.helper)
            let thread = WorkerThread(name: "scand-still") { helped.withLock { $0 = queue.work(reader: helper.value) } }
            let own = queue.work(reader: self)
            thread.join()
            let byHelper = helped.withLock { $0 }
            stepsReadByHelper += byHelper
            stepsReadAtOnce += own + byHelper
            let (done, exhausted) = queue.results(from: next)
            next += done.count
            for (step, result) in done {
                let outcome = try result.get()
                if failure == nil { failure = outcome.failure }
                guard !outcome.reads.found.isEmpty, let image = step.image else { continue }
                let found = try confirm(
                    outcome.reads.found, pass: image, base: base, engine: outcome.reads.engine, frameSize: frameSize,
                    source: step.source, pending: &pending)
                if !found.isEmpty { return BarcodeRead(objects: found, pass: step.pass, engine: outcome.reads.engine) }
            }
            if exhausted { return BarcodeRead() }
            queue.resume()
        }
    }
}

/// One step's outcome in ``StillStepQueue``: its reads and the zbar failure met while reading it.
struct StepOutcome {
    var reads: StepReads
    var failure: String?
}

/// The steps of a still after its plain pass, handed out in order to the readers of
/// ``StillReader/readInParallel(passes:ladder:base:frameSize:)``, and what each read.
final class StillStepQueue: Sendable {
    private struct State {
        var passes: [ReaderPass]
        /// The steps made so far (a pass's images are made when its first step is taken).
        var steps: [StillStep] = []
        /// The next pass whose steps are not made yet.
        var nextPass = 0
        /// The next step to hand out.
        var next = 0
        /// No step after this one is handed out (it read something or failed), until ``resume()``.
        var stopAfter = Int.max
        var results: [Int: Result<StepOutcome, any Error>] = [:]
    }

    private let base: PassImage
    private let frameSize: PixelSize
    private let ladder: [Double]
    private let state: Locked<State>

    init(passes: [ReaderPass], ladder: [Double], base: PassImage, frameSize: PixelSize) {
        self.base = base
        self.frameSize = frameSize
        self.ladder = ladder
        state = Locked(State(passes: passes))
    }

    /// Takes steps in order and reads each with `reader`, until none is left or the queue stops. A pass's
    /// images are made by the reader that takes its first step (under the lock); a ladder level by the reader
    /// that reads it. Returns how many steps it read.
    func work(reader: StillReader) -> Int {
        var count = 0
        while let (number, step) = take(maker: reader) {
            count += 1
            let image = reader.image(of: step, base: base)
            let made = image.map { step.with($0) } ?? step
            var result: Result<StepOutcome, any Error> = .success(
                StepOutcome(reads: StepReads(found: [], engine: .zbar), failure: nil))
            if image != nil {
                reader.zbarFailure = nil
                do {
                    let reads = try reader.stepReads(made, base: base, frameSize: frameSize)
                    result = .success(StepOutcome(reads: reads, failure: reader.zbarFailure))
                } catch {
                    result = .failure(error)
                }
                reader.zbarFailure = nil
            }
            put(number, step: made, result)
        }
        return count
    }

    /// The next step and its number; nil when none is left or the queue is stopped.
    private func take(maker: StillReader) -> (Int, StillStep)? {
        state.withLock { s in
            guard s.next <= s.stopAfter else { return nil }
            while s.next >= s.steps.count {
                guard s.nextPass < s.passes.count else { return nil }
                s.steps += maker.steps(of: s.passes[s.nextPass], ladder: ladder, base: base)
                s.nextPass += 1
            }
            s.next += 1
            return (s.next - 1, s.steps[s.next - 1])
        }
    }

    /// Records what step `number` read. Its image is kept only when the step read something (the confirmation
    /// needs it), so that a still's images are freed as the steps are read, as they are in order.
    private func put(_ number: Int, step: StillStep, _ result: Result<StepOutcome, any Error>) {
        state.withLock { s in
            let stops: Bool
            switch result {
            case .success(let o): stops = !o.reads.found.isEmpty
            case .failure: stops = true
            }
            var kept = step
            if !stops { kept.image = nil }
            s.steps[number] = kept
            s.results[number] = result
            if stops { s.stopAfter = min(s.stopAfter, number) }
        }
    }

    /// The steps read from number `first` on, in order, up to the stop (or, with no stop, every step handed
    /// out), and whether that was every step (no stop: each was handed out and read). Only while no reader works.
    func results(from first: Int) -> (done: [(StillStep, Result<StepOutcome, any Error>)], exhausted: Bool) {
        state.withLock { s in
            let last = min(s.stopAfter, s.next - 1)
            let done = first <= last ? (first...last).map { (s.steps[$0], s.results[$0]!) } : []
            return (done, s.stopAfter == Int.max)
        }
    }

    /// Lets the readers take the steps after the stop.
    func resume() { state.withLock { $0.stopAfter = Int.max } }
}
