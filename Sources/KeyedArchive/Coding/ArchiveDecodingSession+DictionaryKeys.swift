import PropertyList

extension ArchiveDecodingSession {
    /// Whether an `NSDictionary` holding one key twice keeps its last entry rather than being
    /// refused (``ArchiveReadingOptions/duplicateDictionaryKeys``).
    @usableFromInline
    var keepsLastDuplicateDictionaryKey: Bool { options.duplicateDictionaryKeys == .keepLast }

    /// The refusal of the `NSDictionary` at `uid`, whose key at `reference` equals an earlier
    /// one. The key is named as the archive stores it — `""`, `"x"`, `7` — rather than by the
    /// decoded Swift value, whose description can be a dump of a wrapper type.
    @usableFromInline
    func duplicateDictionaryKeyError(_ reference: ArchiveReference, uid: Int) -> ArchiveError {
        error(.duplicateKey, "NSDictionary holds the key \(describeKey(reference)) twice; readers disagree on which entry counts (set ArchiveReadingOptions.duplicateDictionaryKeys = .keepLast to keep the last, as Foundation's NSKeyedUnarchiver does)", uid: uid)
    }

    private func describeKey(_ reference: ArchiveReference) -> String {
        // The reference was followed to decode the key, so it is below the object count.
        guard let keyUID = Int(exactly: reference.uid.value), keyUID < store.count else { return "#\(reference.uid.value)" }
        switch object(keyUID) {
        case .string(let string):
            guard string.unicodeScalars.first == "\u{FEFF}" else { return "\"\(string.excerptForMessage(128))\"" }
            return "\"\\u{FEFF}\(String(string.unicodeScalars.dropFirst()).excerptForMessage(128))\""
        case .integer(let integer): return "\(integer)"
        case .real(let real): return "\(real.doubleValue)"
        case .bool(let flag): return "\(flag)"
        default: return describe(keyUID)
        }
    }
}
