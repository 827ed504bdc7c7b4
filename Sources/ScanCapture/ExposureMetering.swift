public import ScanCore

/// Software exposure metering on a region (`exposurePointOfInterest`): UVC webcams meter the whole picture, so a
/// bright phone screen held up to a kiosk becomes a white rectangle. With this set, the capture thread measures the
/// region's mean luma on every frame and steps a control (``control``, or the first of `exposure_time_absolute`,
/// `gain`, `brightness` that is writable and active) until the mean is within ``tolerance`` of ``target``.
/// Steps are bounded (``maxStep``) and spaced (``settleFrames``); `adjustingExposure` begins/ends are device events.
public struct ExposureMetering: Sendable, Hashable {
    /// The metered region, normalized device coordinates (0...1, origin top left of the captured frame).
    public var region: NormalizedRect
    /// The wanted mean luma of the region, 0...1 of full scale (0.5 = 127.5 of 255).
    public var target: Double
    /// Converged when |mean − target| ≤ tolerance × target; adjusting starts again past twice that.
    public var tolerance: Double
    /// The control to step, by `v4l2-ctl` name (nil: chosen as above).
    public var control: String?
    /// The largest change per step, as a fraction of the control's range (min...max).
    public var maxStep: Double
    /// Frames to wait after a change before measuring again (queued buffers still show the old setting).
    public var settleFrames: Int

    public init(
        region: NormalizedRect, target: Double = 0.5, tolerance: Double = 0.05, control: String? = nil,
        maxStep: Double = 0.25, settleFrames: Int = 2
    ) {
        self.region = region
        self.target = target
        self.tolerance = tolerance
        self.control = control
        self.maxStep = maxStep
        self.settleFrames = settleFrames
    }

    /// The region metered for `exposurePointOfInterest` `point` (normalized device coordinates): a square of
    /// `size` × `size` around it, moved inside the frame.
    public static func region(around point: NormalizedPoint, size: Double = 0.2) -> NormalizedRect {
        let s = min(1, max(0.01, size))
        return NormalizedRect(
            x: min(1 - s, max(0, point.x - s / 2)), y: min(1 - s, max(0, point.y - s / 2)), width: s, height: s)
    }

    /// Checks the numbers.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the field.
    public func validate() throws {
        guard region.isValidRectOfInterest else {
            throw ScanError.invalidArgument(
                "exposure metering region must lie inside 0...1 and be non-empty, got \(region)")
        }
        guard target > 0, target < 1 else {
            throw ScanError.invalidArgument("exposure target must be in (0, 1), got \(target)")
        }
        guard tolerance > 0, tolerance < 0.5 else {
            throw ScanError.invalidArgument("exposure tolerance must be in (0, 0.5), got \(tolerance)")
        }
        guard maxStep > 0, maxStep <= 1 else {
            throw ScanError.invalidArgument("exposure maxStep must be in (0, 1], got \(maxStep)")
        }
        guard settleFrames >= 0, settleFrames <= 100 else {
            throw ScanError.invalidArgument("exposure settleFrames must be 0...100, got \(settleFrames)")
        }
    }

    /// The control to step among `controls`: ``control`` if set, else the first writable, active one of
    /// `exposure_time_absolute`, `gain`, `brightness`.
    /// - Throws: ``ControlError`` when there is none (listing the names), or the named one cannot be stepped.
    public func actuator(in controls: [CaptureDeviceControl]) throws(ControlError) -> (
        CaptureDeviceControl, ExposureController.Response
    ) {
        func response(_ c: CaptureDeviceControl) -> ExposureController.Response {
            c.id == StandardControl.exposureTimeAbsolute || c.id == StandardControl.gain ? .proportional : .offset
        }
        if let name = control {
            let key = controlName(name)
            guard let c = controls.first(where: { $0.name == key }) else {
                throw .unknown(name: name, known: controls.filter { $0.kind != .compound }.map(\.name))
            }
            guard c.kind == .int || c.kind == .int64, !c.isReadOnly, c.maximum > c.minimum else {
                throw .badValue(name: c.name, value: "metering", expected: "a writable integer control with a range")
            }
            return (c, response(c))
        }
        // exposure_time_absolute counts while auto exposure makes it inactive: the session switches to manual.
        let manualExposure = controls.contains {
            $0.id == StandardControl.autoExposure && !$0.isReadOnly && $0.menuOffers(StandardControl.exposureManual)
        }
        for id in [StandardControl.exposureTimeAbsolute, StandardControl.gain, StandardControl.brightness] {
            if let c = controls.first(where: {
                $0.id == id && !$0.isReadOnly && $0.maximum > $0.minimum
                    && (!$0.isInactive || (id == StandardControl.exposureTimeAbsolute && manualExposure))
            }) {
                return (c, response(c))
            }
        }
        throw .unsupportedMode(
            what: "exposure metering", mode: "pointOfInterest", supported: [],
            why: "it has no writable, active exposure_time_absolute, gain or brightness")
    }
}

/// The metering loop's controller: one call per frame with the region's mean luma; it answers with the value to
/// write (if any) and whether `adjustingExposure` began or ended. Pure: no device, no clock (frames count time).
public struct ExposureController: Sendable {
    /// How the picture responds to the control.
    public enum Response: Sendable, Hashable {
        /// Luma ∝ value (exposure time, gain): steps multiply, by at most 2× or ½ a step.
        case proportional
        /// Luma shifts with value (brightness): steps add, scaled by the slope learnt from the last step.
        case offset
    }
    /// What one frame changed.
    public struct Step: Sendable, Hashable {
        /// The value to write now (nil: leave the control alone).
        public var write: Int64?
        /// `adjustingExposure` became true (`began`) or false (`ended`) on this frame.
        public var began = false
        public var ended = false
    }

    public let metering: ExposureMetering
    public let minimum: Int64, maximum: Int64, step: Int64
    public let response: Response
    /// The value the controller last wrote (or found).
    public private(set) var value: Int64
    /// `isAdjustingExposure`.
    public private(set) var isAdjusting = false
    private var framesSinceChange = Int.max
    private var last: (value: Int64, mean: Double)?
    /// Learnt luma change per control unit (offset response).
    private var slope: Double

    public init(
        metering: ExposureMetering, minimum: Int64, maximum: Int64, step: Int64, value: Int64, response: Response
    ) {
        self.metering = metering
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
        self.step = max(1, step)
        self.value = min(max(value, minimum), max(minimum, maximum))
        self.response = response
        slope = 1 / Double(max(1, maximum - minimum))
    }

    /// Takes the region's mean luma (0...1) of the newest frame.
    public mutating func update(mean: Double) -> Step {
        var out = Step()
        if framesSinceChange < Int.max { framesSinceChange += 1 }
        if framesSinceChange <= metering.settleFrames { return out }
        let error = metering.target - mean
        let band = metering.tolerance * metering.target
        if abs(error) <= band {
            if isAdjusting {
                isAdjusting = false
                out.ended = true
            }
            last = nil
            return out
        }
        if !isAdjusting && abs(error) <= 2 * band { return out }
        // Learn the slope from the previous step (offset response).
        if response == .offset, let last {
            let dv = Double(value - last.value)
            let dm = mean - last.mean
            if abs(dv) >= 1, abs(dm) > 0.004, dm / dv > 0 {
                let range = Double(max(1, maximum - minimum))
                slope = min(max(dm / dv, 0.05 / range), 20 / range)
            }
        }
        let range = Double(maximum - minimum)
        let limit = max(Double(step), metering.maxStep * range)
        var next: Double
        switch response {
        case .proportional:
            let ratio = min(2, max(0.5, metering.target / max(mean, 0.01)))
            let base = Double(max(value, max(minimum, 1)))
            next = base * ratio
            next = min(Double(value) + limit, max(Double(value) - limit, next))
        case .offset:
            next = Double(value) + min(limit, max(-limit, error / slope))
        }
        next = min(Double(maximum), max(Double(minimum), next))
        let rounded = minimum + Int64(((next - Double(minimum)) / Double(step)).rounded()) * step
        let clamped = min(maximum, max(minimum, rounded))
        if clamped == value {
            // At the end of the range: nothing more to do until the picture changes.
            if isAdjusting {
                isAdjusting = false
                out.ended = true
            }
            return out
        }
        if !isAdjusting {
            isAdjusting = true
            out.began = true
        }
        last = (value, mean)
        value = clamped
        framesSinceChange = 0
        out.write = clamped
        return out
    }

    /// The controller lost track of the device's value (re-plug, another process): take `value` as current.
    public mutating func reset(value: Int64) {
        self.value = min(max(value, minimum), maximum)
        last = nil
        framesSinceChange = Int.max
    }
}

/// The mean luma (0...1) of `region` (normalized device coordinates) of `plane`, sampling every other pixel of
/// every other row (about a quarter of the region's pixels).
public func meanLuma(of plane: LumaPlane, in region: NormalizedRect) -> Double {
    let x0 = max(0, min(plane.width - 1, Int((region.x * Double(plane.width)).rounded(.down))))
    let y0 = max(0, min(plane.height - 1, Int((region.y * Double(plane.height)).rounded(.down))))
    let x1 = max(x0 + 1, min(plane.width, Int(((region.x + region.width) * Double(plane.width)).rounded(.up))))
    let y1 = max(y0 + 1, min(plane.height, Int(((region.y + region.height) * Double(plane.height)).rounded(.up))))
    var sum = 0
    var n = 0
    plane.bytes.withUnsafeBufferPointer { b in
        var y = y0
        while y < y1 {
            let row = y * plane.stride
            var x = x0
            while x < x1 {
                sum += Int(b[row + x])
                n += 1
                x += 2
            }
            y += 2
        }
    }
    return n == 0 ? 0 : Double(sum) / Double(n) / 255
}
