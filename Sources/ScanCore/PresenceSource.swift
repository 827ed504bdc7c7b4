/// Something that decides presence itself for some types, e.g. a face tracker that assigns faceIDs and
/// knows when a face is gone. The daemon's presence stage leaves those types to it and publishes its
/// transitions in the same `seq` stream.
///
/// The daemon looks for this on its `MetadataOutput` (`extension MetadataOutput: PresenceSource`), so
/// a detector that tracks can plug in without changing the pipeline.
public protocol PresenceSource: AnyObject {
    /// Types whose `appeared` / `lost` this source decides (e.g. `[.face]`).
    var presenceTypes: Set<MetadataObjectType> { get }
    /// The transitions decided on the frame `event` describes (called once per frame, after detection).
    /// `streamTime` is seconds of stream time (continuous across `--loop` passes).
    func presenceTransitions(after event: MetadataEvent, streamTime: Double) -> [PresenceEvent]
}
