import PropertyList

/// How an archive is laid out and serialized.
public struct ArchiveWritingOptions: Hashable, Sendable {
    /// Which generation of Apple's archiver to imitate (format-notes §3.4).
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum Era: Hashable, Sendable {
        /// Current Foundation (2017 onward): root keys `$version, $archiver, $top, $objects`.
        case current
        /// Foundation of macOS 10.6–10.14: root keys `$version, $objects, $archiver, $top`.
        case classic
    }

    /// Which equal strings and numbers become one object.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
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

    /// What an XML archive does with a value that Core Foundation's XML reader (and ours, which
    /// follows it) would return as another value. Binary archives carry every value and ignore
    /// this. Docs/KeyedArchiveFormat.md, "What an XML archive cannot carry", lists the values.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum XMLValueLoss: Hashable, Sendable {
        /// Refuse the archive with ``ArchiveError/Code/unrepresentableValue``, naming the key path
        /// and the value, so that every XML archive written decodes to the values archived. The
        /// default.
        case refuse
        /// Write such values as Core Foundation's `NSKeyedArchiver` does, and let them change on
        /// the way: a string, key or class name loses a leading U+FEFF (so `"x"` and
        /// `"\u{FEFF}x"` as keys of one dictionary read back as one key held twice, which
        /// ``ArchiveReadingOptions/duplicateDictionaryKeys`` then decides about), −0 reads back
        /// as 0, a NaN loses its sign and payload, a date its fraction of a second, and a plain
        /// `{CF$UID: n}` dictionary becomes a reference. Two keys of one object (or of `$top`)
        /// that would read back as one are still refused: no reader could take that object.
        case acceptAsCoreFoundation
    }

    /// Which generation of Apple's archiver to imitate. Default ``Era/current``.
    public var era: Era = .current
    /// Which equal strings and numbers become one object. Default ``Sharing/byValue``.
    public var sharing: Sharing = .byValue
    /// What an XML archive does with a value XML reading would change. Default
    /// ``XMLValueLoss/refuse``.
    public var xmlValueLoss: XMLValueLoss = .refuse
    /// Deepest nesting of objects inside objects while encoding. Default 512. Guards the stack:
    /// encoding recurses through each model's `encode(to:)`.
    public var maximumDepth: Int = 512
    /// The longest encoding may take, from the moment the archiver is made; nil (the default)
    /// for no limit. Past it, encoding stops with ``ArchiveError/Code/timeLimitExceeded`` and the
    /// key path it had reached. The clock is read every thousand or so objects; writing the
    /// finished table out as bytes (a small part of the work) is not interrupted.
    public var maximumDuration: Duration? = nil
    /// Whether encoding stops with ``ArchiveError/Code/cancelled`` when the task running it is
    /// cancelled (checked as often as the clock). Default true.
    public var respondsToCancellation = true

    /// The default options: current era, sharing by value, XML value loss refused, depth 512.
    public init() {}

    /// The default options, as ``init()`` makes them.
    public static let `default` = ArchiveWritingOptions()

    /// The layout and sharing of archives made by Foundation on a Mac.
    public static var appleFaithful: ArchiveWritingOptions {
        var options = ArchiveWritingOptions()
        options.sharing = .appleInstances
        return options
    }
}

/// The property-list format an archive is written in: the `PropertyList` module's own format
/// enum, under the name the archiving API has always used (one type, not two with the same
/// cases). `.binary` is what `NSKeyedArchiver` writes by default; `.xml` is readable, but some
/// values cannot be carried (``ArchiveWritingOptions/xmlValueLoss``).
public typealias ArchiveFormat = PropertyListFormat
