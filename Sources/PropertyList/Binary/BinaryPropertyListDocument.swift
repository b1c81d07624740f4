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
        case string(String)
        case integer(PropertyListInteger)
        case real(PropertyListReal)
        case bool(Bool)
        case date(PropertyListDate)
        case data([UInt8])
        case uid(PropertyListUID)
        case array([Int])
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

    public struct Layout: Hashable, Sendable {
        public var offsetIntSize: Int
        public var objectRefSize: Int
        public var offsetTableOffset: Int
    }

    public init(objects: [Object], topObject: Int) {
        self.objects = objects
        self.topObject = topObject
        self.sourceLayout = nil
    }
}
