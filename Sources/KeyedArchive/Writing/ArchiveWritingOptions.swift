import PropertyList

/// How an archive is laid out and serialized.
public struct ArchiveWritingOptions: Hashable, Sendable {
    /// Which generation of Apple's archiver to imitate (format-notes §3.4).
    public enum Era: Hashable, Sendable {
        /// Current Foundation (2017 onward): root keys `$version, $archiver, $top, $objects`.
        case current
        /// Foundation of macOS 10.6–10.14: root keys `$version, $objects, $archiver, $top`.
        case classic
    }

    /// Which equal strings and numbers become one object.
    public enum Sharing: Hashable, Sendable {
        /// Equal strings, numbers and data are stored once (one UID, one plist object): compact
        /// and deterministic. The default.
        case byValue
        /// Imitate Apple's archiver, which shares by instance identity: strings short enough to
        /// be tagged-pointer strings on a Mac, and small numbers, are one instance per value;
        /// every other string encoded is its own object; dictionary keys and class names are one
        /// instance per value. Produces the same bytes as a Mac for the graphs measured in
        /// Docs/KeyedArchiveFormat.md; files are larger.
        case appleInstances
    }

    public var era: Era = .current
    public var sharing: Sharing = .byValue
    /// Deepest nesting of objects inside objects while encoding. Default 512. Guards the stack:
    /// encoding recurses through each model's `encode(to:)`.
    public var maximumDepth: Int = 512

    public init() {}

    public static let `default` = ArchiveWritingOptions()

    /// The layout and sharing of archives made by Foundation on a Mac.
    public static var appleFaithful: ArchiveWritingOptions {
        var options = ArchiveWritingOptions()
        options.sharing = .appleInstances
        return options
    }
}

/// The property-list format an archive is written in.
public enum ArchiveFormat: Hashable, Sendable {
    case binary
    case xml
}
