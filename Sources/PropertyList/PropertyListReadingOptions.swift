/// Limits a reader enforces on untrusted input. Each guards against one kind of hostile file;
/// defaults are generous enough for every Apple-made file we know of.
///
/// The limits of this package are named alike in every layer: `…Count` counts things,
/// `…ByteCount` counts bytes, `…Length` is one value's length in the units its format stores it
/// in (bytes, or characters of a binary string); a limit on one thing names the thing
/// (`maximumCollectionElementCount`: the elements of one collection), and a budget over the whole
/// input says so (`maximumTotalElementCount` of `ArchiveReadingOptions`, the `Expanded…` counts).
public struct PropertyListReadingOptions: Hashable, Sendable {
    /// Deepest container nesting accepted. Default 512, Core Foundation's own XML limit
    /// (it is 128 on iOS). Guards the stack: readers recurse at most this deep.
    public var maximumDepth: Int = 512
    /// Most objects a binary file may declare in its trailer. Default 64 Mi (a file that
    /// declares more needs at least that many bytes of offset table anyway; this caps the
    /// memory of the object table before any object is read).
    public var maximumObjectCount: Int = 64 << 20
    /// Most elements one array, set or dictionary may hold. Default 16 Mi.
    public var maximumCollectionElementCount: Int = 16 << 20
    /// Most bytes (data) or characters (strings) in one value. Default 256 MiB.
    public var maximumValueLength: Int = 256 << 20
    /// Most values a binary file may expand to when its shared objects are copied into a
    /// tree (a "billion laughs" file of arrays that reference one another repeatedly).
    /// Default 64 Mi values.
    public var maximumExpandedValueCount: Int = 64 << 20
    /// The longest a read may take, from its start; nil (the default) for no limit. Past it,
    /// the read stops with ``PropertyListError/Code/timeLimitExceeded``: a budget for callers
    /// outside structured concurrency, which cannot cancel a task. The clock is read about every
    /// thousand objects, so the stop comes within a millisecond or so of the deadline (one
    /// collection's elements are read between two checks).
    public var maximumDuration: Duration? = nil
    /// Whether a read stops with ``PropertyListError/Code/cancelled`` when the task running it
    /// is cancelled (`Task.isCancelled`, checked as often as the clock). Default true; set it
    /// false for a read that must finish even in a cancelled task (a clean-up path).
    public var respondsToCancellation = true

    /// The default limits, as listed on each property.
    public init() {}

    /// The default limits, as listed on each property.
    public static let `default` = PropertyListReadingOptions()
}
