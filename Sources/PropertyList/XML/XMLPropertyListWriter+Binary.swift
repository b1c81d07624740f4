extension BinaryPropertyListTree {
    /// How many bytes of XML are gathered before they are handed to `output`.
    package static let xmlChunkSize = 1 << 20

    /// The file's XML in Core Foundation's layout, handed to `output` in chunks of about
    /// ``xmlChunkSize`` as it is made: the bytes `XMLPropertyListWriter().write(value)` makes
    /// of the file's value, made from the bytes without the value. The plan must be made
    /// `for: .xml` (it has checked every value the writer could refuse), from these `bytes`.
    package func writeXML(_ bytes: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) -> Void) throws(PropertyListError) {
        var builder = XMLPropertyListBuilder()
        var keys = BinaryDictionaryKeys()
        var stack: [(frame: Frame, depth: Int, order: [Int]?)] = []
        /// Writes `node` at `depth`: a scalar whole, a container opened (and pushed) or, empty, whole.
        func begin(_ node: Int, depth: Int) throws(PropertyListError) {
            guard Self.isContainer(marker(bytes, node)) else {
                try builder.add(scalarValue(bytes, node), depth: depth)
                return
            }
            let opened = frame(bytes, node)
            if opened.isDictionary {
                try builder.beginDictionary(count: opened.count, depth: depth)
                if opened.count > 0 { stack.append((opened, depth, keys.writingOrder(self, bytes, opened))) }
            } else {
                try builder.beginArray(count: opened.count, depth: depth)
                if opened.count > 0 { stack.append((opened, depth, nil)) }
            }
        }
        try begin(top, depth: 0)
        while let last = stack.indices.last {
            let (open, depth, order) = stack[last]
            let position = open.next
            guard position < open.count else {
                if open.isDictionary { builder.endDictionary(depth: depth) } else { builder.endArray(depth: depth) }
                stack.removeLast()
                continue
            }
            stack[last].frame.next = position &+ 1
            let entry = order?[position] ?? position
            if open.isDictionary {
                let key = child(bytes, of: open, at: entry, key: true)
                if let ascii = asciiBytes(bytes, key) {
                    builder.addKey(utf8: ascii, depth: depth &+ 1)
                } else {
                    builder.addKey(string(bytes, key), depth: depth &+ 1)
                }
            }
            try begin(child(bytes, of: open, at: entry), depth: depth &+ 1)
            if builder.bufferedCount >= Self.xmlChunkSize { builder.drain(output) }
        }
        builder.finish(output)
    }

    /// What the XML of this file loses, as ``XMLConversionLoss/firstLoss(of:readingBack:)``
    /// finds it by reading the XML back, found from the bytes value by value: each value
    /// against what XML reads back for it (``XMLConversionLoss/readBack(_:)``), in the same
    /// order, so the same first loss is named. The plan must be made `for: .xml`.
    package func firstXMLLoss(_ bytes: UnsafeRawBufferPointer) -> String? {
        /// Two containers compared: the file's `x`, and `y` as XML reads it back (the same
        /// object but where keys that lose a leading U+FEFF pair values otherwise), with the
        /// position in `y` of each entry of `x` (nil: the same).
        struct Pair {
            var x: Frame
            let y: Frame
            let partners: [Int]?
        }
        var stack: [Pair] = []
        func path() -> String {
            var text = "root"
            for pair in stack {
                let position = pair.x.next &- 1
                if pair.x.isDictionary {
                    text += "." + string(bytes, child(bytes, of: pair.x, at: position, key: true)).excerptForMessage(64)
                } else {
                    text += "[\(position)]"
                }
            }
            return text
        }
        /// Compares `x` with `y` read back; opens the pair of containers to compare their entries.
        func compare(_ x: Int, _ y: Int) -> String? {
            let xMarker = marker(bytes, x) >> 4, yMarker = marker(bytes, y) >> 4
            if xMarker == 0xA, yMarker == 0xA {
                let left = frame(bytes, x), right = frame(bytes, y)
                guard left.count == right.count else { return "\(path()): \(left.count) elements became \(right.count)" }
                if left.count > 0 { stack.append(Pair(x: left, y: right, partners: nil)) }
                return nil
            }
            if xMarker == 0xD, yMarker == 0xD, uidReadBack(bytes, y) == nil {
                let left = frame(bytes, x), right = frame(bytes, y)
                guard left.count == right.count else { return "\(path()): \(left.count) keys became \(right.count)" }
                var partners: [Int]?
                if x != y || (0..<left.count).contains(where: { startsWithByteOrderMark(bytes, child(bytes, of: left, at: $0, key: true)) }) {
                    // Keys matched as a lookup in the dictionary read back matches them, the
                    // last key first (XMLConversionLoss.firstLoss does so).
                    let readKeys = (0..<right.count).map { XMLConversionLoss.readBackText(string(bytes, child(bytes, of: right, at: $0, key: true))) }
                    var found = [Int](repeating: 0, count: left.count)
                    for position in (0..<left.count).reversed() {
                        let key = string(bytes, child(bytes, of: left, at: position, key: true))
                        guard let partner = readKeys.lastIndex(where: { $0.isExactlyEqual(to: key) }) else {
                            return "\(path()): key \"\(key.excerptForMessage(64))\" did not survive"
                        }
                        found[position] = partner
                    }
                    partners = found
                }
                if left.count > 0 { stack.append(Pair(x: left, y: right, partners: partners)) }
                return nil
            }
            if x == y {
                // What XML keeps whole, by marker, without making the value.
                switch xMarker {
                case 0x0, 0x4, 0x5, 0x8: return nil
                case 0x1 where marker(bytes, x) & 0x0F < 4: return nil
                case 0x6 where !startsWithByteOrderMark(bytes, x): return nil
                default: break
                }
            }
            return XMLConversionLoss.scalarLoss(originalValue(bytes, x), readBackValue(bytes, y), path: path)
        }
        if let loss = compare(top, top) { return loss }
        while let last = stack.indices.last {
            let position = stack[last].x.next
            guard position < stack[last].x.count else {
                stack.removeLast()
                continue
            }
            stack[last].x.next = position &+ 1
            let pair = stack[last]
            if let loss = compare(child(bytes, of: pair.x, at: position), child(bytes, of: pair.y, at: pair.partners?[position] ?? position)) { return loss }
        }
        return nil
    }

    /// Whether the string `node` starts with U+FEFF (which XML readers drop).
    private func startsWithByteOrderMark(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> Bool {
        let offset = Int(offsets[node])
        guard bytes[offset] >> 4 == 0x6 else { return false }
        let header = BinaryObjectHeader(bytes, at: offset)
        return header.count > 0 && bytes[header.payload] == 0xFE && bytes[header.payload &+ 1] == 0xFF
    }

    /// The file's value at `node` for a comparison of scalars: a container stands for its kind.
    private func originalValue(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> PropertyListValue {
        switch marker(bytes, node) >> 4 {
        case 0xA: return .array([])
        case 0xD: return .dictionary(PropertyListDictionary())
        default: return scalarValue(bytes, node)
        }
    }

    /// What XML reads back for `node` in a comparison of scalars: a container stands for its
    /// kind, and a dictionary XML reads as a UID is that UID.
    private func readBackValue(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> PropertyListValue {
        switch marker(bytes, node) >> 4 {
        case 0xA: return .array([])
        case 0xD: return uidReadBack(bytes, node).map(PropertyListValue.uid) ?? .dictionary(PropertyListDictionary())
        default: return XMLConversionLoss.readBack(scalarValue(bytes, node))
        }
    }

    /// The UID that XML reads the dictionary `node` back as: one key, `CF$UID` once a leading
    /// U+FEFF is dropped, whose value reads back as an integer or a real. Nil for any other.
    private func uidReadBack(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> PropertyListUID? {
        let opened = frame(bytes, node)
        guard opened.count == 1 else { return nil }
        let valueNode = child(bytes, of: opened, at: 0)
        let valueType = marker(bytes, valueNode) >> 4
        guard valueType == 0x1 || valueType == 0x2 else { return nil }
        let key = XMLConversionLoss.readBackText(string(bytes, child(bytes, of: opened, at: 0, key: true)))
        return XMLPropertyListParser.uid(key: key, value: XMLConversionLoss.readBack(scalarValue(bytes, valueNode)))
    }
}
