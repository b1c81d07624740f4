/// A binary property list as its object table: every object once, containers holding object
/// numbers rather than values.
///
/// Core Foundation uniques strings, numbers, dates and data by *instance identity*, so which
/// equal values share one object cannot be derived from the values. A document keeps the
/// table as the file had it, so ``BinaryPropertyListWriter`` can write it back byte for byte;
/// it is also how a caller (the keyed archiver's Apple-faithful mode) chooses sharing itself.
public struct BinaryPropertyListDocument: Hashable, Sendable {
    /// One entry of the object table.
    public enum Object: Hashable, Sendable {
        /// A string object (ASCII `0x5` or UTF-16 `0x6` marker).
        case string(String)
        /// An integer object (`0x1` marker), 8 or 16 bytes wide as stored.
        case integer(PropertyListInteger)
        /// A real object (`0x22` or `0x23` marker).
        case real(PropertyListReal)
        /// A boolean (`0x08` false, `0x09` true).
        case bool(Bool)
        /// A date object (`0x33` marker).
        case date(PropertyListDate)
        /// A data object (`0x4` marker).
        case data([UInt8])
        /// A UID object (`0x8` marker), a keyed archive's object reference.
        case uid(PropertyListUID)
        /// An array: its elements as object numbers.
        case array([Int])
        /// A set (`0xC` marker): its elements as object numbers.
        case set([Int])
        /// Keys and values as object numbers, in stored order; both arrays have the same count.
        case dictionary(keys: [Int], values: [Int])
    }

    /// The object table. Object numbers are indices into it.
    public var objects: [Object]
    /// The object number of the root.
    public var topObject: Int

    /// Sizes the file was written with, when the document was read from a file. A writer uses
    /// them to pick Core Foundation's era variant that reproduces the file (``BinaryPropertyListWriter/matching(_:)``).
    public var sourceLayout: Layout?

    /// The sizes a binary file was written with, read from its trailer.
    public struct Layout: Hashable, Sendable {
        /// Bytes per offset-table entry, 1 to 8 (Mac OS X 10.5 could write 3).
        public var offsetIntSize: Int
        /// Bytes per object reference inside containers.
        public var objectRefSize: Int
        /// Where the offset table starts, in bytes from the start of the file.
        public var offsetTableOffset: Int
    }

    /// A document of the object table `objects` with root `topObject`, not read from a file (``sourceLayout`` is nil).
    public init(objects: [Object], topObject: Int) {
        self.objects = objects
        self.topObject = topObject
        self.sourceLayout = nil
    }
}
