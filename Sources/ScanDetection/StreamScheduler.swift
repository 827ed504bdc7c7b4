import ScanCore

/// The stream step scheduler of the code reader (``BarcodeDetector``): which reading steps a stream frame meets
/// after its plain pass, taken in rotation from frame to frame, and which of them a deadline puts off. It
/// orders the work and reads nothing itself.
///
/// A value type owned by one detector (not shared between threads).
struct StreamScheduler {
    typealias Step = BarcodeDetector.StreamStep

    let configuration: BarcodeConfiguration
    /// Every step after the plain zbar pass, in the order a still image would meet them.
    let steps: [Step]
    /// ``steps`` for frames above ``BarcodeConfiguration/streamMaximumUpscaleSide``: without the upscaled
    /// passes, and zxing-cpp's step on each thresholded image split in two, its 1-D formats and then the others.
    let largeFrameSteps: [Step]
    /// How many times in a row a step may be put off for a deadline before it runs anyway.
    static let maximumDeferrals = 3
    /// Steps put off so far because they would have missed the frame's deadline.
    private(set) var deferredSteps = 0
    /// zxing-cpp is enabled (the pyramid's extra levels are its steps; zbar's without it).
    private let zxing: Bool

    /// The step lists made for frames with a pyramid, by frame kind.
    private var pyramidSteps: [PyramidKey: [Step]] = [:]
    private var cursor = 0
    /// How long each step took lately (moving average), for deadlines.
    private var costs: [Step: Duration] = [:]
    /// Turns in a row each step was put off because it would have missed the deadline.
    private var deferrals: [Step: Int] = [:]
    /// The step that last read something: tried first on the next frame (a dark-mode code then reads on every
    /// frame at the cost of two scans, instead of once per rotation).
    private var sticky: Step?

    private struct PyramidKey: Hashable {
        var large: Bool
        var levels: Int
    }

    /// The scheduler for a reader running `passes` (its effective passes, `plain` first) with zbar and/or
    /// zxing-cpp enabled.
    init(configuration: BarcodeConfiguration, passes: [ReaderPass], zbar: Bool, zxing: Bool) {
        self.configuration = configuration
        self.zxing = zxing
        var out: [Step] = []
        for pass in passes {
            let images =
                pass == .plain || pass == .inverted
                ? 1
                : pass == .deskewed ? BarcodeDetector.deskewDirections : (configuration.tryInverted ? 2 : 1)
            for image in 0..<images {
                if pass != .plain && zbar { out.append(Step(pass: pass, image: image, engine: .zbar)) }
                if zxing { out.append(Step(pass: pass, image: image, engine: .zxing)) }
            }
        }
        steps = out
        largeFrameSteps = out.flatMap { step -> [Step] in
            if step.pass == .upscaled || step.pass == .upscaledThresholded { return [] }
            guard step.pass == .thresholded, step.engine == .zxing else { return [step] }
            var linear = step
            var matrix = step
            linear.formats = .linear
            matrix.formats = .matrix
            return [linear, matrix]
        }
    }

    /// The reading steps a stream frame (or rect of interest) of `width`×`height` pixels rotates through:
    /// ``steps``, or ``largeFrameSteps`` above ``BarcodeConfiguration/streamMaximumUpscaleSide``. On a
    /// thresholded 1280×720 frame zxing-cpp 3.1's step for every format takes 34–40 ms on this machine (the
    /// image's binary noise gives its row decoders and its finder-pattern searches many candidates), more than
    /// a 30 fps frame's whole budget, and the deadline rule still runs it every fourth turn; each half takes
    /// ≈ 20 ms, thresholding included (docs/performance.md). That step was the live p99 latency at 720p.
    ///
    /// Frames whose long side is at least ``BarcodeConfiguration/streamPyramidSide`` (1080p and up) also meet the
    /// still pyramid's levels below half size (``downscaleDivisors(width:height:)``): one step each for zxing-cpp
    /// (zbar with `--engine zbar`), each level then its inverted twin, right after the half-size steps.
    mutating func steps(width: Int, height: Int) -> [Step] {
        let large = isLargeFrame(longSide: max(width, height))
        let base = large ? largeFrameSteps : steps
        let levels = downscaleDivisors(width: width, height: height).count
        guard levels > 1, let last = base.lastIndex(where: { $0.pass == .downscaled }) else { return base }
        let key = PyramidKey(large: large, levels: levels)
        if let known = pyramidSteps[key] { return known }
        let twins = configuration.tryInverted ? 2 : 1
        let engine: BarcodeEngine = zxing ? .zxing : .zbar
        var out = base
        out.insert(
            contentsOf: (twins..<(twins * levels)).map { Step(pass: .downscaled, image: $0, engine: engine) },
            at: last + 1)
        pyramidSteps[key] = out
        return out
    }

    /// The divisors of the `downscaled` pass's levels on a stream frame (or rect of interest) of `width`×`height`
    /// pixels: 2 (half size), and on frames whose long side is at least ``BarcodeConfiguration/streamPyramidSide``
    /// every level a still of that size has (``BarcodeConfiguration/pyramidDivisors(width:height:)``). A
    /// 2592×1944 frame: 2, 3, 4, 6 (1296, 864, 648, 432 px); 1920×1080: 2, 3, 4 (960, 640, 480 px).
    func downscaleDivisors(width: Int, height: Int) -> [Int] {
        let all = configuration.pyramidDivisors(width: width, height: height)
        return max(width, height) >= configuration.streamPyramidSide ? all : Array(all.prefix(1))
    }

    /// Whether a stream frame (or rect of interest) whose long side is `longSide` pixels is a large one: above
    /// ``BarcodeConfiguration/streamMaximumUpscaleSide`` (``BarcodeConfiguration/maximumUpscaleSide`` if nil).
    func isLargeFrame(longSide: Int) -> Bool {
        longSide > configuration.streamMaximumUpscaleSide ?? configuration.maximumUpscaleSide
    }

    /// zbar's scan-line spacing, in pixels of the image it scans, for a step on `pass` when the plain pass scans
    /// every `density`-th line of the frame: twice as far apart on the upscaled image (the same lines of the
    /// frame), and ``BarcodeConfiguration/largeFrameStepSpacing`` times as far apart on the full-size
    /// thresholded and deskewed images of a `large` frame (``isLargeFrame(longSide:)``).
    func zbarDensity(_ pass: ReaderPass, density: Int, large: Bool) -> Int {
        switch pass {
        case .upscaled: return 2 * density
        case .thresholded, .deskewed: return large ? max(1, configuration.largeFrameStepSpacing) * density : density
        default: return density
        }
    }

    /// This frame's steps, `count` of them from `all` (the frame's rotation): the step that read the last frame
    /// first, then the next ones of the rotation. Returns that step too (never put off); it is forgotten until
    /// a step reads again (``read(by:)``).
    mutating func queue(from all: [Step], count: Int) -> (steps: [Step], sticky: Step?) {
        var queue: [Step] = []
        if let sticky, count > 0 { queue.append(sticky) }
        while queue.count < max(0, count) {
            let step = all[cursor % all.count]
            cursor = (cursor + 1) % all.count
            if step != queue.first { queue.append(step) } else if all.count == 1 { break }
        }
        let last = sticky
        sticky = nil
        return (queue, last)
    }

    /// Whether `step` is put off to its next turn: with a `deadline`, when its recent cost would end after it,
    /// at most ``maximumDeferrals`` times in a row; never the `sticky` step.
    mutating func putsOff(_ step: Step, sticky: Step?, deadline: MonotonicInstant?) -> Bool {
        if let deadline, step != sticky, let cost = costs[step], MonotonicInstant.now.advanced(by: cost) > deadline,
            deferrals[step, default: 0] < Self.maximumDeferrals
        {
            deferrals[step, default: 0] += 1
            deferredSteps += 1
            return true
        }
        deferrals[step] = 0
        return false
    }

    /// Records that `step` took `took` (a moving average: 0.7 of the old, 0.3 of the new).
    mutating func record(_ step: Step, took: Duration) {
        costs[step] = costs[step].map { $0 * 0.7 + took * 0.3 } ?? took
    }

    /// `step` read this frame: it goes first on the next one.
    mutating func read(by step: Step) { sticky = step }
}

extension BarcodeConfiguration {
    /// The divisors of the `downscaled` pass's levels on a still image (or rect of interest) of `width`×`height`
    /// pixels, smallest first (largest level first): 2, then halvings (4, 8, …) and, with ``pyramidThirds``, a
    /// third and its halvings (3, 6, …), while the next level's long side is at least ``pyramidMinimumSide`` and
    /// the level it is halved from is at least 64 pixels each way (a third: the image at least 192). None for an
    /// image under 64 pixels either way. A 4032×3024 photo: 2, 3, 4, 6, 8 (2016, 1344, 1008, 672, 504 px on the
    /// long side).
    func pyramidDivisors(width: Int, height: Int) -> [Int] {
        guard width >= 64, height >= 64 else { return [] }
        let minimum = pyramidMinimumSide
        let long = max(width, height)
        /// `first` and its halvings while the level halved is at least 64 px each way and the next is long enough.
        func chain(from first: Int) -> [Int] {
            var out = [first]
            var d = first
            while width / d >= 64, height / d >= 64, long / d / 2 >= minimum {
                d *= 2
                out.append(d)
            }
            return out
        }
        var out = chain(from: 2)
        if pyramidThirds, width >= 192, height >= 192, long / 3 >= minimum { out += chain(from: 3) }
        return out.sorted()
    }
}
