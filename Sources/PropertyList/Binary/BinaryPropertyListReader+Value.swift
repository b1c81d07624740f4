extension BinaryPropertyListReader {
    /// Reads a binary property list straight into its value tree, without building the object
    /// table: the fast path when sharing need not be kept. Validation is the same as `read(_:options:)`'s
    /// for everything reachable from the top object.
    public static func readValue(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        var parser = BinaryPropertyListParser(bytes: bytes, options: options)
        return try parser.parseValueTree()
    }

    /// Reads a binary property list from `bytes` straight into its value tree (see the buffer variant).
    public static func readValue(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        let result: Result<PropertyListValue, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try readValue(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

extension BinaryPropertyListParser {
    private struct Frame {
        var node: Int
        var offset: Int
        var marker: UInt8
        /// Number of entries (dictionary pairs count once).
        var count: Int
        var payload: Int
        /// Next child to visit; dictionaries have 2 × count children, keys first.
        var next: Int
        var childCount: Int
    }

    @inline(__always)
    private func reference(at position: Int) -> Int {
        BinaryBigEndian.load(bytes, at: position, width: objectRefSize)
    }

    private func error(_ code: PropertyListError.Code, _ message: String, at offset: Int) -> PropertyListError {
        PropertyListError(code, message, at: .byteOffset(offset))
    }

    /// Marker, count and payload start of a container object, with its span checked.
    private mutating func containerHeader(node: Int, offset: Int) throws(PropertyListError) -> Frame {
        let marker = bytes[offset]
        let (count, payload) = try readContainerCount(marker: marker, at: offset)
        guard count <= options.maximumCollectionElementCount else {
            throw error(.sizeLimitExceeded, "object \(node): collection of \(count) elements exceeds the limit of \(options.maximumCollectionElementCount)", at: offset)
        }
        let isDictionary = marker >> 4 == 0xD
        let children = isDictionary ? count &* 2 : count
        let (span, overflow) = children.multipliedReportingOverflow(by: objectRefSize)
        guard !overflow, span <= offsetTableStart &- payload else {
            throw error(.invalidLength, "object \(node): collection of length \(count) runs past the object region", at: offset)
        }
        try countPayload(span, at: offset)
        return Frame(node: node, offset: offset, marker: marker, count: count, payload: payload, next: 0, childCount: children)
    }

    mutating func parseValueTree() throws(PropertyListError) -> PropertyListValue {
        let (offsetIntSize, topObject) = try parseTrailer()
        let count = objectCount
        // Offsets fit 32 bits for any file under 4 GiB; larger files take the general reader.
        guard bytes.count <= Int(UInt32.max) else {
            throw error(.sizeLimitExceeded, "files over 4 GiB are read with BinaryPropertyListReader.read", at: 0)
        }
        var offsets = [UInt32](repeating: 0, count: count)
        var entry = offsetTableStart
        let tableOffset = offsetTableStart
        for index in 0..<count {
            let offset = BinaryBigEndian.load(bytes, at: entry, width: offsetIntSize)
            guard offset >= BinaryPropertyListFormat.headerLength, offset < tableOffset else {
                throw error(.invalidOffset, "object \(index) has an offset outside the object region 8..<\(tableOffset)", at: entry)
            }
            offsets[index] = UInt32(truncatingIfNeeded: offset)
            entry &+= offsetIntSize
        }

        // 0 = unvisited, 1 = on the current path, 2 = finished.
        var state = [UInt8](repeating: 0, count: count)
        // Tree sizes in full: the budget is the caller's option, and any width narrower than
        // it would let a size that saturated pass a larger budget.
        var expanded = [Int](repeating: 0, count: count)
        var values = [PropertyListValue](repeating: .bool(false), count: count)
        // How many container levels each finished container holds (itself included; 0 for
        // scalars). A shared container is expanded wherever it is referenced, so the value's
        // depth is the deepest reference's depth plus this, not the depth of the walk: without
        // it, chained shared containers build a value far deeper than maximumDepth, whose
        // comparison and release would recurse past the end of the stack.
        var heights = [UInt32](repeating: 0, count: count)

        @inline(__always)
        func isContainerMarker(_ marker: UInt8) -> Bool {
            let high = marker >> 4
            return high == 0xA || high == 0xC || high == 0xD
        }

        let topOffset = Int(offsets[topObject])
        if !isContainerMarker(bytes[topOffset]) {
            return try scalarValue(node: topObject, offset: topOffset)
        }
        var stack: [Frame] = [try containerHeader(node: topObject, offset: topOffset)]
        state[topObject] = 1
        let maximumDepth = options.maximumDepth
        // Checked once per container visit (children are read in a tight loop between two).
        let interruption = WorkInterruption(options)
        var untilCheck = WorkInterruption.interval
        while !stack.isEmpty {
            let top = stack.count &- 1
            var frame = stack[top]
            untilCheck &-= 1
            if untilCheck == 0 {
                untilCheck = WorkInterruption.interval
                if let stop = interruption.stop() { throw WorkInterruption.error(stop, at: .byteOffset(frame.offset)) }
            }
            let isDictionary = frame.marker >> 4 == 0xD
            // Visit children in order, in one tight loop, until one is a container not seen
            // before: then save the progress, descend into it, and come back here later.
            var descended = false
            while frame.next < frame.childCount {
                let index = frame.next
                frame.next = index &+ 1
                let position = frame.payload &+ index &* objectRefSize
                let child = reference(at: position)
                guard child >= 0, child < count else {
                    throw error(.invalidReference, "object \(frame.node): reference \(child) is not below the object count \(count)", at: position)
                }
                let childOffset = Int(offsets[child])
                let childMarker = bytes[childOffset]
                if isDictionary && index < frame.count {
                    let high = childMarker >> 4
                    guard high == 0x5 || high == 0x6 else {
                        // A marker that is no object at all is reported as such, as read() does.
                        _ = try scalarValueIfNotContainer(node: child, offset: childOffset)
                        throw error(.nonStringKey, "object \(frame.node): dictionary key (object \(child)) is not a string", at: position)
                    }
                }
                let childState = state[child]
                if childState == 2 {
                    let height = heights[child]
                    if height != 0, stack.count &+ Int(height) > maximumDepth {
                        throw error(.depthLimitExceeded, "object \(child): a shared container \(height) levels deep, referenced \(stack.count) levels down, nests deeper than \(maximumDepth)", at: childOffset)
                    }
                    if height != 0, !ThreadStackLimit.canHoldValue(depth: stack.count &+ Int(height)) {
                        throw PropertyListError.valueTooDeepForStack(stack.count &+ Int(height), at: .byteOffset(childOffset))
                    }
                    continue
                }
                if childState == 1 {
                    throw error(.recursiveContainer, "object \(child) contains itself (reached again from object \(frame.node))", at: childOffset)
                }
                if isContainerMarker(childMarker) {
                    guard stack.count < maximumDepth else {
                        throw error(.depthLimitExceeded, "object \(child): containers nest deeper than \(maximumDepth)", at: childOffset)
                    }
                    guard ThreadStackLimit.canHoldValue(depth: stack.count &+ 1) else {
                        throw PropertyListError.valueTooDeepForStack(stack.count &+ 1, at: .byteOffset(childOffset))
                    }
                    state[child] = 1
                    stack[top].next = frame.next
                    stack.append(try containerHeader(node: child, offset: childOffset))
                    descended = true
                    break
                }
                values[child] = try scalarValue(node: child, offset: childOffset)
                state[child] = 2
                expanded[child] = 1
            }
            if descended { continue }
            // Every child is finished: build this container from its children's values. Its
            // references are read again unchecked: the loop above checked each against the count.
            var total = 1
            var childHeight: UInt32 = 0
            switch frame.marker >> 4 {
            case 0xD:
                var entries: [PropertyListDictionary.Entry] = []
                entries.reserveCapacity(frame.count)
                var keyPosition = frame.payload
                var valuePosition = frame.payload &+ frame.count &* objectRefSize
                for _ in 0..<frame.count {
                    let key = reference(at: keyPosition)
                    let member = reference(at: valuePosition)
                    guard case .string(let keyString) = values[key] else {
                        throw error(.nonStringKey, "object \(frame.node): dictionary key (object \(key)) is not a string", at: keyPosition)
                    }
                    entries.append(PropertyListDictionary.Entry(key: keyString, value: values[member]))
                    childHeight = max(childHeight, heights[member])
                    // The key counts as a value too. Sizes saturate at Int.max, so add in two checked steps.
                    let (withValue, overflow) = total.addingReportingOverflow(expanded[member])
                    let (sum, keyOverflow) = withValue.addingReportingOverflow(1)
                    total = overflow || keyOverflow ? Int.max : sum
                    keyPosition &+= objectRefSize
                    valuePosition &+= objectRefSize
                }
                values[frame.node] = .dictionary(PropertyListDictionary(entries: entries))
            default:
                var elements: [PropertyListValue] = []
                elements.reserveCapacity(frame.count)
                var position = frame.payload
                for _ in 0..<frame.count {
                    let element = reference(at: position)
                    elements.append(values[element])
                    childHeight = max(childHeight, heights[element])
                    let (sum, overflow) = total.addingReportingOverflow(expanded[element])
                    total = overflow ? Int.max : sum
                    position &+= objectRefSize
                }
                values[frame.node] = frame.marker >> 4 == 0xA ? .array(elements) : .set(elements)
            }
            guard total <= options.maximumExpandedValueCount else {
                throw error(.sizeLimitExceeded, "object \(frame.node) expands to more than \(options.maximumExpandedValueCount) values (shared containers referenced repeatedly)", at: frame.offset)
            }
            expanded[frame.node] = total
            heights[frame.node] = childHeight &+ 1
            state[frame.node] = 2
            stack.removeLast()
        }
        return values[topObject]
    }

    /// Parses a non-container object only to surface its own fault (an invalid marker) before
    /// a caller reports a higher-level one.
    private mutating func scalarValueIfNotContainer(node: Int, offset: Int) throws(PropertyListError) -> PropertyListValue? {
        let high = bytes[offset] >> 4
        if high == 0xA || high == 0xC || high == 0xD { return nil }
        return try scalarValue(node: node, offset: offset)
    }

    /// A non-container object as a value. Strings and integers, the bulk of an archive, are
    /// decoded here directly; the rarer types go through the general object parser.
    @inline(__always)
    private mutating func scalarValue(node: Int, offset: Int) throws(PropertyListError) -> PropertyListValue {
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x5 where marker & 0x0F != 0x0F:
            let count = Int(marker & 0x0F)
            let payload = offset &+ 1
            guard count <= options.maximumValueLength else {
                throw error(.sizeLimitExceeded, "object \(node): string of \(count) characters exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            guard count <= offsetTableStart &- payload else {
                throw error(.invalidLength, "object \(node): ASCII string runs past the object region", at: offset)
            }
            try countPayload(count, at: offset)
            let slice = UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ count)])
            guard BinaryText.isASCII(slice) else {
                throw error(.invalidText, "object \(node): ASCII string holds a byte above 0x7F", at: payload)
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x1 where marker & 0x0F <= 2:
            let width = 1 &<< Int(marker & 0x0F)
            guard width <= offsetTableStart &- offset &- 1 else {
                throw error(.truncated, "object \(node): \(width)-byte integer runs past the object region", at: offset)
            }
            return .integer(PropertyListInteger(Int64(BinaryBigEndian.load(bytes, at: offset &+ 1, width: width))))
        case 0x6:
            let (count, payload) = try readContainerCount(marker: marker, at: offset)
            guard count <= options.maximumValueLength else {
                throw error(.sizeLimitExceeded, "object \(node): string of \(count) UTF-16 units exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            let span = try checkSpan(count: count, width: 2, payload: payload, objectOffset: offset, what: "UTF-16 string")
            guard let string = BinaryText.stringFromUTF16BigEndian(UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ span)])) else {
                throw error(.invalidText, "object \(node): UTF-16 string has an unpaired surrogate", at: payload)
            }
            return .string(string)
        case 0x4:
            let (count, payload) = try readContainerCount(marker: marker, at: offset)
            guard count <= options.maximumValueLength else {
                throw error(.sizeLimitExceeded, "object \(node): data of \(count) bytes exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            _ = try checkSpan(count: count, width: 1, payload: payload, objectOffset: offset, what: "data")
            return .data(Array(UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ count)])))
        case 0x2 where marker == 0x22:
            guard offsetTableStart &- offset &- 1 >= 4 else {
                throw error(.truncated, "object \(node): 4-byte real runs past the object region", at: offset)
            }
            let bits = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt32.self))
            return .real(.float32(Float(bitPattern: bits)))
        case 0x0 where marker == 0x08 || marker == 0x09:
            return .bool(marker == 0x09)
        case 0x2 where marker == 0x23, 0x3 where marker == 0x33:
            guard offsetTableStart &- offset &- 1 >= 8 else {
                throw error(.truncated, "object \(node): 8-byte number runs past the object region", at: offset)
            }
            let bits = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt64.self))
            return marker == 0x23 ? .real(.float64(Double(bitPattern: bits))) : .date(PropertyListDate(secondsSinceReferenceDate: Double(bitPattern: bits)))
        case 0x8 where marker & 0x0F <= 3:
            let width = Int(marker & 0x0F) &+ 1
            guard width <= offsetTableStart &- offset &- 1 else {
                throw error(.truncated, "object \(node): UID runs past the object region", at: offset)
            }
            return .uid(PropertyListUID(UInt64(BinaryBigEndian.load(bytes, at: offset &+ 1, width: width))))
        default:
            break
        }
        switch try parseObject(at: offset, index: node) {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .bool(let value): return .bool(value)
        case .date(let value): return .date(value)
        case .data(let value): return .data(value)
        case .uid(let value): return .uid(value)
        case .array, .set, .dictionary:
            // Callers route containers elsewhere; reaching here means the marker check and the
            // parser disagree, which is a fault in the file as far as the caller can tell.
            throw error(.invalidObjectMarker, "object \(node): unexpected container", at: offset)
        }
    }
}

/// Big-endian loads of the widths bplist00 uses, on bounds the caller has checked.
package enum BinaryBigEndian {
    /// Loads a `width`-byte (1...8) big-endian unsigned number; widths of 8 bytes with the top
    /// bit set come back negative, which every caller's range check then rejects.
    @inlinable @inline(__always)
    package static func load(_ bytes: UnsafeRawBufferPointer, at position: Int, width: Int) -> Int {
        switch width {
        case 1: return Int(bytes[position])
        case 2: return Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
        case 4: return Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        case 8: return Int(truncatingIfNeeded: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
        default:
            var value = 0
            var index = position
            let end = position &+ width
            while index < end {
                value = value &<< 8 | Int(bytes[index])
                index &+= 1
            }
            return value
        }
    }
}
