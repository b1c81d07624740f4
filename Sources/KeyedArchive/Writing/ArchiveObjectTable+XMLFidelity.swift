import PropertyList

/// What Core Foundation's XML reader returns differently from what an XML archive holds
/// (../shared/docs/xml-format-notes.md, "What an XML round trip cannot keep", and the leading
/// U+FEFF rule in Docs/PropertyLists.md). Each function answers nil when the value reads back as
/// itself, else how it changes, for the refusal's message.
///
/// Not here because they change only the stored form, never a decoded value: a 32-bit real is
/// written widened and reads back as the same number in 64 bits (a `Float` decode gives the same
/// `Float`), a 16-byte integer as an ordinary one of the same value, and an infinity as itself.
enum XMLArchiveFidelity {
    /// The reader's one NaN (`nan` gives Swift's `.nan`, as `strtod` gives it to Core Foundation).
    static let readNaN = Double.nan.bitPattern
    static let readFloatNaN = Float(Double.nan).bitPattern

    @inline(__always)
    static func startsWithByteOrderMark(_ string: String) -> Bool {
        // The first byte decides nearly every string without decoding a scalar.
        string.utf8.first == 0xEF && string.unicodeScalars.first == "\u{FEFF}"
    }

    /// A string for a message, its leading U+FEFF spelled out (it is invisible otherwise).
    static func quoted(_ string: String) -> String {
        guard startsWithByteOrderMark(string) else { return "\"\(string.excerptForMessage(128))\"" }
        return "\"\\u{FEFF}\(String(string.unicodeScalars.dropFirst()).excerptForMessage(128))\""
    }

    static func stringChange(_ string: String, what: String) -> String? {
        guard startsWithByteOrderMark(string) else { return nil }
        return "the \(what) \(quoted(string)) starts with U+FEFF, which Core Foundation's XML reader drops: it would read back as \(quoted(String(string.unicodeScalars.dropFirst())))"
    }

    static func realChange(_ real: PropertyListReal) -> String? {
        switch real {
        case .float64(let double):
            if double.bitPattern == (-0.0 as Double).bitPattern { return "the real −0 is written as 0.0 in XML and would read back as +0" }
            if double.isNaN, double.bitPattern != readNaN {
                return "the NaN 0x\(String(double.bitPattern, radix: 16)) is written as nan in XML and would read back as the NaN 0x\(String(readNaN, radix: 16))"
            }
        case .float32(let float):
            if float.bitPattern == (-0.0 as Float).bitPattern { return "the 32-bit real −0 is written as 0.0 in XML and would read back as +0" }
            if float.isNaN, float.bitPattern != readFloatNaN {
                return "the 32-bit NaN 0x\(String(float.bitPattern, radix: 16)) is written as nan in XML and would read back as the NaN 0x\(String(readFloatNaN, radix: 16))"
            }
        }
        return nil
    }

    static func dateChange(_ date: PropertyListDate) -> String? {
        let seconds = date.secondsSinceReferenceDate
        // A non-finite or far date is refused by the XML writer itself.
        guard seconds.isFinite else { return nil }
        if seconds.bitPattern == (-0.0 as Double).bitPattern { return "the date −0 s would read back as +0 s" }
        let whole = seconds.rounded(.down)
        guard whole != seconds else { return nil }
        return "the date \(seconds) s since 2001 has a fraction of a second, which XML drops: it would read back as \(whole) s"
    }

    /// The first part of a value (a property-list value stored inline in a field or in `$top`)
    /// that would read back otherwise, with the path to it below `path`. Walks with a stack of
    /// its own: the writer's depth check comes later, so nesting must not cost this walk stack.
    static func firstChange(in value: PropertyListValue, at path: [ArchiveKeyPath.Component]) -> (path: [ArchiveKeyPath.Component], change: String)? {
        var pending: [(value: PropertyListValue, path: [ArchiveKeyPath.Component])] = [(value, path)]
        while let (value, path) = pending.popLast() {
            switch value {
            case .string(let string):
                if let change = stringChange(string, what: "string") { return (path, change) }
            case .real(let real):
                if let change = realChange(real) { return (path, change) }
            case .date(let date):
                if let change = dateChange(date) { return (path, change) }
            case .array(let elements), .set(let elements):
                for (index, element) in elements.enumerated().reversed() { pending.append((element, path + [.index(index)])) }
            case .dictionary(let dictionary):
                if let change = uidLookalike(dictionary) { return (path, change) }
                for entry in dictionary.entries.reversed() {
                    if let change = stringChange(entry.key, what: "dictionary key") { return (path + [.key(entry.key)], change) }
                    pending.append((entry.value, path + [.key(entry.key)]))
                }
            case .integer, .bool, .data, .uid:
                break
            }
        }
        return nil
    }

    /// A plain dictionary that XML readers take for a reference (xml-format-notes.md, UID row).
    static func uidLookalike(_ dictionary: PropertyListDictionary) -> String? {
        guard dictionary.count == 1, let entry = dictionary.entries.first, entry.key.isExactlyEqual(to: "CF$UID") else { return nil }
        switch entry.value {
        case .integer, .real: return "a dictionary whose only key is CF$UID, holding a number, reads back from XML as an object reference"
        default: return nil
        }
    }
}

extension ArchiveObjectTable {
    /// Refuses the first value that an XML archive of this table would not read back as: a
    /// string, key or class name starting with U+FEFF, −0, a NaN other than the reader's, a date
    /// with a fraction of a second, a `{CF$UID: n}` dictionary (Docs/KeyedArchiveFormat.md).
    /// One pass over the table, run for XML only, so binary archives pay nothing for it.
    func checkXMLFidelity() throws(ArchiveError) {
        for (index, key) in topKeys.enumerated() {
            let path: [ArchiveKeyPath.Component] = [.key(Self.userKey(key))]
            if let change = XMLArchiveFidelity.stringChange(key, what: "top-level key") { throw refusal(change, path: path, uid: nil) }
            if let (at, change) = XMLArchiveFidelity.firstChange(in: topValues[index], at: path) { throw refusal(change, path: at, uid: nil) }
        }
        if topKeys.count == 1, let value = topValues.first, let change = XMLArchiveFidelity.uidLookalike(PropertyListDictionary(entries: [.init(key: topKeys[0], value: value)])) {
            throw refusal("$top: \(change)", path: [], uid: nil)
        }
        // Keys are stored once each in `keyTexts`: check them there, and look at a field's key
        // only when one of them would change (the per-field check was most of this pass).
        let someKeyChanges = keyTexts.contains { XMLArchiveFidelity.startsWithByteOrderMark($0) }
        for (uid, entry) in entries.enumerated() {
            switch entry {
            case .string(let string):
                if let change = XMLArchiveFidelity.stringChange(string, what: "string") { throw refusal(change, path: path(to: uid), uid: uid) }
            case .real(let real):
                if let change = XMLArchiveFidelity.realChange(real) { throw refusal(change, path: path(to: uid), uid: uid) }
            case .instance(_, let fields):
                for position in fields {
                    if someKeyChanges {
                        let key = keyTexts[Int(fieldKeys[position])]
                        if let change = XMLArchiveFidelity.stringChange(key, what: "key") {
                            throw refusal(change, path: path(to: uid) + [.key(Self.userKey(key))], uid: uid)
                        }
                    }
                    switch fieldValues[position] {
                    case .double(let double):
                        if let change = XMLArchiveFidelity.realChange(.float64(double)) {
                            let key = keyTexts[Int(fieldKeys[position])]
                            throw refusal(change, path: path(to: uid) + [.key(Self.userKey(key))], uid: uid)
                        }
                    case .other(let other):
                        // The path to the object is searched for only once a value is refused.
                        if let (at, change) = XMLArchiveFidelity.firstChange(in: otherFieldValues[other], at: []) {
                            let key = keyTexts[Int(fieldKeys[position])]
                            throw refusal(change, path: path(to: uid) + [.key(Self.userKey(key))] + at, uid: uid)
                        }
                    case .uid, .integer, .bool, .uidList:
                        break
                    }
                }
            case .classDescriptor(let name, let classes):
                for className in [name] + classes {
                    if let change = XMLArchiveFidelity.stringChange(className, what: "class name") {
                        throw refusal(change, path: pathToAnInstance(ofClass: uid), uid: uid)
                    }
                }
            case .storedClassDescriptor(let descriptor):
                for className in [descriptor.name] + descriptor.classes + (descriptor.hints ?? []) {
                    if let change = XMLArchiveFidelity.stringChange(className, what: "class name") {
                        throw refusal(change, path: pathToAnInstance(ofClass: uid), uid: uid)
                    }
                }
            case .null, .integer, .bool, .data, .reserved:
                break
            }
        }
    }

    private func refusal(_ change: String, path: [ArchiveKeyPath.Component], uid: Int?) -> ArchiveError {
        ArchiveError(
            .unrepresentableValue, "an XML archive cannot hold this value as it is: \(change)",
            keyPath: ArchiveKeyPath(path), uid: uid.map { PropertyListUID(UInt64($0)) },
            remedy: "write the archive as binary, or set ArchiveWritingOptions.xmlValueLoss = .acceptAsCoreFoundation to write it as Core Foundation does")
    }

    /// A stored key as the model wrote it (`$$name` is the model's `$name`), as key paths show keys.
    private static func userKey(_ storedKey: String) -> String {
        ArchiveKeys.unescape(storedKey) ?? storedKey
    }

    /// The key path from `$top` to the object at `uid`, breadth first (so the shortest); empty
    /// when nothing reaches it. Made only for a refusal, so its cost does not matter.
    private func path(to target: Int) -> [ArchiveKeyPath.Component] {
        var parents = [(parent: Int, step: [ArchiveKeyPath.Component])?](repeating: nil, count: entries.count)
        var reached = [Bool](repeating: false, count: entries.count)
        var queue: [Int] = []
        func visit(_ uid: PropertyListUID, from parent: Int, step: [ArchiveKeyPath.Component]) {
            guard uid.value < UInt64(entries.count) else { return }
            let index = Int(uid.value)
            guard !reached[index] else { return }
            reached[index] = true
            parents[index] = (parent, step)
            queue.append(index)
        }
        func visitNested(_ value: PropertyListValue, from parent: Int, step: [ArchiveKeyPath.Component]) {
            var pending = [(value, step)]
            while let (value, step) = pending.popLast() {
                switch value {
                case .uid(let uid): visit(uid, from: parent, step: step)
                case .array(let elements), .set(let elements):
                    for (index, element) in elements.enumerated() { pending.append((element, step + [.index(index)])) }
                case .dictionary(let dictionary):
                    for entry in dictionary.entries { pending.append((entry.value, step + [.key(entry.key)])) }
                default: break
                }
            }
        }
        for (index, key) in topKeys.enumerated() { visitNested(topValues[index], from: -1, step: [.key(Self.userKey(key))]) }
        var next = 0
        while next < queue.count, !(reached.indices.contains(target) && reached[target]) {
            let uid = queue[next]
            next += 1
            guard case .instance(_, let fields) = entries[uid] else { continue }
            for position in fields {
                let key = Self.userKey(keyTexts[Int(fieldKeys[position])])
                switch fieldValues[position] {
                case .uid(let reference): visit(reference, from: uid, step: [.key(key)])
                case .uidList(let start, let count):
                    for element in 0..<Int(count) { visit(listUIDs[Int(start) + element], from: uid, step: [.key(key), .index(element)]) }
                case .other(let other): visitNested(otherFieldValues[other], from: uid, step: [.key(key)])
                case .integer, .bool, .double: break
                }
            }
        }
        var path: [ArchiveKeyPath.Component] = []
        var current = target
        while current >= 0, parents.indices.contains(current), let link = parents[current] {
            path.insert(contentsOf: link.step, at: 0)
            current = link.parent
        }
        return path
    }

    /// The path to the first object of the class described at `descriptorUID`, and its
    /// `$classname` below it.
    private func pathToAnInstance(ofClass descriptorUID: Int) -> [ArchiveKeyPath.Component] {
        for (uid, entry) in entries.enumerated() {
            if case .instance(let classUID, _) = entry, classUID == descriptorUID { return path(to: uid) + [.key(ArchiveKeys.className)] }
        }
        return [.key(ArchiveKeys.className)]
    }
}
