/// Which DOCTYPE line an XML property list carries. Nothing in the values tells them apart, so
/// a byte-exact rewrite must remember it.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum XMLPropertyListDoctype: Hashable, Sendable {
    /// `-//Apple//DTD PLIST 1.0//EN`, written by Core Foundation since Mac OS X 10.5.
    case modern
    /// `-//Apple Computer//DTD PLIST 1.0//EN`, written up to Mac OS X 10.4.
    case legacyAppleComputer
}

/// An XML property list as read: its value and the DOCTYPE variant it had.
///
/// Writing `value` with `XMLPropertyListWriter(doctype: doctype)` reproduces any file Core
/// Foundation wrote byte for byte.
public struct XMLPropertyListDocument: Hashable, Sendable {
    /// The file's top value.
    public var value: PropertyListValue
    /// The DOCTYPE line the file had.
    public var doctype: XMLPropertyListDoctype

    /// A document of `value` with the DOCTYPE `doctype` (today's by default).
    public init(value: PropertyListValue, doctype: XMLPropertyListDoctype = .modern) {
        self.value = value
        self.doctype = doctype
    }
}
