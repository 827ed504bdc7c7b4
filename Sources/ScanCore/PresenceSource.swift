/// Something that decides presence itself for some types, e.g. a face tracker that assigns faceIDs and
/// knows when a face is gone. The daemon's presence stage leaves those types to it and publishes its
/// transitions in the same `seq` stream.
///
/// `MetadataOutput` conforms (`extension MetadataOutput: PresenceSource`): the transitions it decides on
/// a frame come back from that frame's `processFrame(_:source:)` call (`FrameResult.facePresence`), not
/// through a property read afterwards, and the daemon leaves ``presenceTypes`` out of its own stage.
public protocol PresenceSource: AnyObject {
    /// Types whose `appeared` / `lost` this source decides (e.g. `[.face]`).
    var presenceTypes: Set<MetadataObjectType> { get }
}
