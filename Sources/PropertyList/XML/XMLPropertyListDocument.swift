/// Which DOCTYPE line an XML property list carries. Nothing in the values tells them apart, so
/// a byte-exact rewrite must remember it.
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
    public var value: PropertyListValue
    public var doctype: XMLPropertyListDoctype

    public init(value: PropertyListValue, doctype: XMLPropertyListDoctype = .modern) {
        self.value = value
        self.doctype = doctype
    }
}
