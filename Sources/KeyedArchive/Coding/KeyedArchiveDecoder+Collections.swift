import PropertyList

extension KeyedArchiveDecoder {
    /// The elements of the `NSSet` (or `NSMutableSet`) under `key`, in the order the archive
    /// stores them: for elements a Swift `Set` cannot hold or order (models, which have
    /// identity rather than equality of values), and wherever that order should come back
    /// (``KeyedArchiveEncoder/encode(_:forKey:classes:)-(Array<Element>,_,_)`` writes them again).
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when absent or `$null`,
    ///   ``ArchiveError/Code/typeMismatch`` for an object that is not a set, and whatever
    ///   decoding an element throws.
    public func decodeSetElements<Element: ArchiveObjectDecodable>(_ type: Element.Type, forKey key: String) throws(ArchiveError) -> [Element] {
        guard let elements = try decodeSetElementsIfPresent(type, forKey: key) else {
            throw error(.valueNotFound, "expected a set of \(Element.self), found \(fields[ArchiveKeys.escape(key)] == nil ? "no value" : "$null")", key: key)
        }
        return elements
    }

    /// Like ``decodeSetElements(_:forKey:)``, but nil when the key is absent or `$null`.
    public func decodeSetElementsIfPresent<Element: ArchiveObjectDecodable>(_ type: Element.Type, forKey key: String) throws(ArchiveError) -> [Element]? {
        guard let reference = try reference(forKey: key), !reference.isNull else { return nil }
        return try session.withPath(.key(key)) { () throws(ArchiveError) in
            try ArchiveArrayDecoding.decodeElements(uid: try session.index(reference), requested: "the elements of a set of \(Element.self)", kind: .set,
                                                    session: session) { (element: ArchiveReference) throws(ArchiveError) in
                try decode(Element.self, reference: element)
            }
        }
    }
}
