extension BinaryPropertyListDocument.Object {
    @inline(__always)
    var childCount: Int {
        switch self {
        case .array(let elements), .set(let elements): return elements.count
        case .dictionary(let keys, let values): return keys.count &+ values.count
        default: return 0
        }
    }

    /// Keys come before values, matching the order Core Foundation's writer visits them.
    @inline(__always)
    func child(at position: Int) -> Int {
        switch self {
        case .array(let elements), .set(let elements): return elements[position]
        case .dictionary(let keys, let values):
            return position < keys.count ? keys[position] : values[position &- keys.count]
        default: return 0
        }
    }

    var isContainer: Bool {
        switch self {
        case .array, .set, .dictionary: return true
        default: return false
        }
    }
}

extension BinaryPropertyListDocument {
    /// Walks the objects reachable from the top without recursion, checking what the value
    /// tree needs: references in range, non-string keys, no container inside itself, nesting
    /// depth, and the size of the tree once shared objects are copied out.
    /// - Returns: the reachable objects in post-order (children before parents).
    func validateGraph(options: PropertyListReadingOptions, objectOffsets: (Int) -> Int) throws(PropertyListError) -> [Int] {
        let count = objects.count
        func location(_ index: Int) -> PropertyListError.Location {
            .byteOffset(objectOffsets(index))
        }
        guard topObject >= 0, topObject < count else {
            throw PropertyListError(.invalidReference, "top object \(topObject) is not below the object count \(count)")
        }
        // 0 = unvisited, 1 = on the current path, 2 = finished.
        var state = [UInt8](repeating: 0, count: count)
        var expanded = [Int](repeating: 0, count: count)
        // Container levels in each finished container (0 for scalars): a shared container
        // nests as deep as its deepest reference puts it (see parseValueTree).
        var heights = [UInt32](repeating: 0, count: count)
        var postOrder: [Int] = []
        var stack: [(node: Int, next: Int)] = [(topObject, 0)]
        state[topObject] = 1
        let interruption = WorkInterruption(options)
        var untilCheck = WorkInterruption.interval
        while let frame = stack.last {
            untilCheck &-= 1
            if untilCheck == 0 {
                untilCheck = WorkInterruption.interval
                if let stop = interruption.stop() { throw WorkInterruption.error(stop, at: location(frame.node)) }
            }
            let object = objects[frame.node]
            if frame.next == 0, case .dictionary(let keys, let values) = object {
                guard keys.count == values.count else {
                    throw PropertyListError(.invalidLength, "object \(frame.node): dictionary has \(keys.count) keys and \(values.count) values", at: location(frame.node))
                }
                for key in keys {
                    guard key >= 0, key < count else {
                        throw PropertyListError(.invalidReference, "object \(frame.node): key reference \(key) is not below the object count \(count)", at: location(frame.node))
                    }
                    guard case .string = objects[key] else {
                        throw PropertyListError(.nonStringKey, "object \(frame.node): dictionary key (object \(key)) is \(objects[key].kindNameWithArticle), not a string", at: location(frame.node))
                    }
                }
            }
            if frame.next < object.childCount {
                stack[stack.count &- 1].next = frame.next &+ 1
                let child = object.child(at: frame.next)
                guard child >= 0, child < count else {
                    throw PropertyListError(.invalidReference, "object \(frame.node): reference \(child) is not below the object count \(count)", at: location(frame.node))
                }
                switch state[child] {
                case 0:
                    if objects[child].isContainer {
                        guard stack.count < options.maximumDepth else {
                            throw PropertyListError(.depthLimitExceeded, "object \(child): containers nest deeper than \(options.maximumDepth)", at: location(child))
                        }
                        guard ThreadStackLimit.canHoldValue(depth: stack.count &+ 1) else {
                            throw PropertyListError.valueTooDeepForStack(stack.count &+ 1, at: location(child))
                        }
                        state[child] = 1
                        stack.append((child, 0))
                    } else {
                        state[child] = 2
                        expanded[child] = 1
                        postOrder.append(child)
                    }
                case 1:
                    throw PropertyListError(.recursiveContainer, "object \(child) contains itself (reached again from object \(frame.node))", at: location(child))
                default:
                    let height = heights[child]
                    if height != 0, stack.count &+ Int(height) > options.maximumDepth {
                        throw PropertyListError(.depthLimitExceeded, "object \(child): a shared container \(height) levels deep, referenced \(stack.count) levels down, nests deeper than \(options.maximumDepth)", at: location(child))
                    }
                    if height != 0, !ThreadStackLimit.canHoldValue(depth: stack.count &+ Int(height)) {
                        throw PropertyListError.valueTooDeepForStack(stack.count &+ Int(height), at: location(child))
                    }
                }
                continue
            }
            // All children finished: total the tree size this object expands to.
            var total = 1
            if case .dictionary(let keys, _) = object {
                // Keys are strings, one value each; they add to the count but cannot nest.
                total = total.addingReportingOverflow(keys.count).partialValue
            }
            let firstValueChild: Int
            if case .dictionary(let keys, _) = object { firstValueChild = keys.count } else { firstValueChild = 0 }
            var position = firstValueChild
            let children = object.childCount
            var childHeight: UInt32 = 0
            while position < children {
                let child = object.child(at: position)
                let (sum, overflow) = total.addingReportingOverflow(expanded[child])
                total = overflow ? Int.max : sum
                childHeight = max(childHeight, heights[child])
                position &+= 1
            }
            guard total <= options.maximumExpandedValueCount else {
                throw PropertyListError(.sizeLimitExceeded, "object \(frame.node) expands to more than \(options.maximumExpandedValueCount) values (shared containers referenced repeatedly)", at: location(frame.node))
            }
            expanded[frame.node] = total
            heights[frame.node] = childHeight &+ 1
            state[frame.node] = 2
            postOrder.append(frame.node)
            stack.removeLast()
        }
        return postOrder
    }

    /// The document's value tree. Objects referenced from several places become equal values
    /// in each place (storage is shared copy-on-write, so this costs no extra memory).
    /// - Throws: ``PropertyListError`` for a document that is not a valid tree (possible when
    ///   the document was built by hand rather than read).
    public func value(options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        let order = try validateGraph(options: options, objectOffsets: { _ in 0 })
        var values = [PropertyListValue](repeating: .bool(false), count: objects.count)
        for node in order {
            switch objects[node] {
            case .string(let value): values[node] = .string(value)
            case .integer(let value): values[node] = .integer(value)
            case .real(let value): values[node] = .real(value)
            case .bool(let value): values[node] = .bool(value)
            case .date(let value): values[node] = .date(value)
            case .data(let value): values[node] = .data(value)
            case .uid(let value): values[node] = .uid(value)
            case .array(let elements): values[node] = .array(elements.map { values[$0] })
            case .set(let elements): values[node] = .set(elements.map { values[$0] })
            case .dictionary(let keys, let members):
                var entries: [PropertyListDictionary.Entry] = []
                entries.reserveCapacity(keys.count)
                for position in keys.indices {
                    // validateGraph guaranteed string keys.
                    let key = values[keys[position]].stringValue ?? ""
                    entries.append(PropertyListDictionary.Entry(key: key, value: values[members[position]]))
                }
                values[node] = .dictionary(PropertyListDictionary(entries: entries))
            }
        }
        return values[topObject]
    }

    /// A document for a value tree: equal strings, numbers, dates and data become one object
    /// (compact and deterministic, since a value has no instance identity to go by); `true` and
    /// `false` are one object each, as Core Foundation's boolean singletons are; every container
    /// and UID is its own object.
    /// - Throws: ``PropertyListError/Code/depthLimitExceeded`` past `maximumDepth`.
    public init(value: PropertyListValue, maximumDepth: Int = PropertyListReadingOptions.default.maximumDepth) throws(PropertyListError) {
        var builder = DocumentBuilder(maximumDepth: maximumDepth)
        let top = try builder.add(value, depth: 0)
        self.init(objects: builder.objects, topObject: top)
    }
}

private struct DocumentBuilder {
    var objects: [BinaryPropertyListDocument.Object] = []
    var scalarNumbers: [PropertyListValue: Int] = [:]
    var stringNumbers: [ExactString: Int] = [:]
    var trueNumber: Int?
    var falseNumber: Int?
    let maximumDepth: Int

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    mutating func addString(_ string: String) -> Int {
        if let existing = stringNumbers[ExactString(string)] { return existing }
        let number = objects.count
        objects.append(.string(string))
        stringNumbers[ExactString(string)] = number
        return number
    }

    mutating func addScalar(_ value: PropertyListValue, _ object: BinaryPropertyListDocument.Object) -> Int {
        if let existing = scalarNumbers[value] { return existing }
        let number = objects.count
        objects.append(object)
        scalarNumbers[value] = number
        return number
    }

    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string): return addString(string)
        case .integer(let integer): return addScalar(value, .integer(integer))
        case .real(let real): return addScalar(value, .real(real))
        case .date(let date): return addScalar(value, .date(date))
        case .data(let data): return addScalar(value, .data(data))
        case .bool(let flag):
            if let existing = flag ? trueNumber : falseNumber { return existing }
            objects.append(.bool(flag))
            if flag { trueNumber = objects.count - 1 } else { falseNumber = objects.count - 1 }
            return objects.count - 1
        case .uid(let uid):
            objects.append(.uid(uid))
            return objects.count - 1
        case .array(let elements), .set(let elements):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            let number = objects.count
            objects.append(.array([]))
            var children: [Int] = []
            children.reserveCapacity(elements.count)
            for element in elements {
                children.append(try add(element, depth: depth + 1))
            }
            if case .set = value { objects[number] = .set(children) } else { objects[number] = .array(children) }
            return number
        case .dictionary(let dictionary):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            let number = objects.count
            objects.append(.array([]))
            var keys: [Int] = []
            var values: [Int] = []
            keys.reserveCapacity(dictionary.count)
            values.reserveCapacity(dictionary.count)
            for entry in dictionary.entries { keys.append(addString(entry.key)) }
            for entry in dictionary.entries { values.append(try add(entry.value, depth: depth + 1)) }
            objects[number] = .dictionary(keys: keys, values: values)
            return number
        }
    }
}

extension BinaryPropertyListDocument.Object {
    var kindName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uid: return "UID"
        case .array: return "array"
        case .set: return "set"
        case .dictionary: return "dictionary"
        }
    }

    var kindNameWithArticle: String { withArticle(kindName) }
}
