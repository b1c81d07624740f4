import PropertyList

extension KeyedArchiveDecoder {
    /// The elements of the `NSSet` (or `NSMutableSet`) under `key`, in the order the archive
    /// stores them: for elements a Swift `Set` cannot hold or order (models, which have
    /// identity rather than equality of values), and wherever that order should come back
    /// (``KeyedArchiveEncoder/encode(_:forKey:classes:)-([Element],_,_)`` writes them again).
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

extension KeyedArchiveDecoder {
    /// Decodes a back-reference archived without a key (`$0`, `$1`, …, at `index`) once the
    /// whole graph is built, as ``decode(_:forKey:for:assign:)`` does for a keyed one: `assign`
    /// receives `object` and the value (nil for `$null`). Nothing stored there is an error then,
    /// as an inline value is.
    public func decodeUnkeyed<Root: AnyObject, T: ArchiveObjectDecodable>(_ type: T.Type, at index: Int, for object: Root,
                                                                          assign: @escaping (Root, T?) -> Void) {
        let storedKey = "$\(index)"
        noteRead(storedKey: storedKey)
        let stored = fields[storedKey]
        var reference: ArchiveReference?
        if case .uid(let uid)? = stored { reference = ArchiveReference(uid: uid) }
        session.enqueue(holder: self, reference: reference) { (decoder, reference) throws(ArchiveError) in
            guard let reference else {
                throw decoder.error(stored == nil ? .valueNotFound : .typeMismatch,
                                    stored.map { "expected a reference to an object, found \($0.kindNameWithArticle)" } ?? "no unkeyed value \(storedKey)", key: storedKey)
            }
            guard !reference.isNull else { return assign(object, nil) }
            assign(object, try decoder.session.withPath(.key(storedKey)) { () throws(ArchiveError) in try decoder.decode(type, reference: reference) })
        }
    }
}
