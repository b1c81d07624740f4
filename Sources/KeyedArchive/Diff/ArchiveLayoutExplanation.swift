import PropertyList

/// Why the bytes of two archives differ when their graphs are equal — the question every
/// fixture test that compares bytes ends up asking: the format, the object numbering, the key
/// order inside objects and the header, which equal values are stored once (uniquing), which
/// references point at one shared property-list object and which at equal copies (object
/// reuse), where the same objects sit in the file (object order), and the binary file's own
/// layout (offset and reference sizes, integer widths and the rest of Core Foundation's layout,
/// checked by writing the file again as Core Foundation would).
package enum ArchiveLayoutExplanation {
    /// One line per reason, most telling first. Plain property lists get the file-level
    /// reasons only.
    /// - Throws: ``ArchiveError`` when either input is not a property list.
    package static func explain(_ bytesA: [UInt8], _ bytesB: [UInt8], options: ArchiveReadingOptions = .default) throws(ArchiveError) -> [String] {
        if bytesA == bytesB { return ["the files are byte-identical"] }
        let fileA: PropertyListFile
        let fileB: PropertyListFile
        do {
            fileA = try PropertyListCodec.readFile(bytesA, options: options.propertyList)
            fileB = try PropertyListCodec.readFile(bytesB, options: options.propertyList)
        } catch {
            throw ArchiveError(error)
        }
        var lines: [String] = []
        let graphA = try? ArchiveGraph(bytes: bytesA, options: options)
        let graphB = try? ArchiveGraph(bytes: bytesB, options: options)
        var diff: ArchiveDiff?
        if let graphA, let graphB {
            diff = ArchiveDiff(graphA, graphB)
        }
        if let diff, !diff.isEqual {
            lines.append("the graphs differ (\(diff.differences.count + diff.omittedCount) differences, see the diff): the layout below is only part of why the bytes differ")
        }
        if fileA.format != fileB.format {
            lines.append("format: A is \(fileA.format.rawValue), B is \(fileB.format.rawValue)")
        }
        if case .binary(let documentA) = fileA, case .binary(let documentB) = fileB {
            lines += binaryLayout(documentA, bytesA, documentB, bytesB)
        }
        if let graphA, let graphB, let diff {
            lines += graphLayout(graphA, graphB, diff)
        }
        if lines.isEmpty {
            lines.append("no difference of layout found: the files hold the same values laid out alike; the bytes differ in what this report does not name (string storage, or XML text such as indentation and the DOCTYPE)")
        }
        return lines
    }

    static func binaryLayout(_ a: BinaryPropertyListDocument, _ bytesA: [UInt8], _ b: BinaryPropertyListDocument, _ bytesB: [UInt8]) -> [String] {
        var lines: [String] = []
        if let layoutA = a.sourceLayout, let layoutB = b.sourceLayout {
            if layoutA.offsetIntSize != layoutB.offsetIntSize || layoutA.objectRefSize != layoutB.objectRefSize {
                lines.append("offset sizes: A has \(layoutA.offsetIntSize)-byte offsets and \(layoutA.objectRefSize)-byte object references, B \(layoutB.offsetIntSize)-byte and \(layoutB.objectRefSize)-byte")
            }
        }
        if a.objects.count != b.objects.count {
            lines.append("uniquing in the property list: A's file holds \(a.objects.count) objects, B's \(b.objects.count) (equal values written once and referenced, or written again)")
        }
        lines += referenceLayout(a, b)
        let faithfulA = (try? BinaryPropertyListWriter.matching(a).write(a)) == bytesA
        let faithfulB = (try? BinaryPropertyListWriter.matching(b).write(b)) == bytesB
        if faithfulA != faithfulB {
            let other = faithfulA ? "B" : "A"
            lines.append("\(other) is not laid out as Core Foundation lays out its objects (integer widths, string storage, object order in the file or the offset table differ from what Core Foundation writes for the same objects)")
        } else if !faithfulA {
            lines.append("neither file is laid out as Core Foundation lays out its objects (integer widths, string storage or object order)")
        }
        return lines
    }

    /// Which objects the two files' references point at, walked side by side from the top: a
    /// file that points two references at one object where the other stores two equal objects
    /// (reuse, or uniquing, of equal values), or that holds the same objects at other positions
    /// (object order). Each object pair is walked once, so the work is linear in the files.
    static func referenceLayout(_ a: BinaryPropertyListDocument, _ b: BinaryPropertyListDocument) -> [String] {
        guard a.objects.indices.contains(a.topObject), b.objects.indices.contains(b.topObject) else { return [] }
        var partnerOfA = [Int](repeating: -1, count: a.objects.count)
        var partnerOfB = [Int](repeating: -1, count: b.objects.count)
        // Paths as parent links, spelled out only for the examples named.
        var parents: [Int] = [-1]
        var labels: [String] = [""]
        var pending: [(a: Int, b: Int, path: Int)] = [(a.topObject, b.topObject, 0)]
        var reusedByA = 0, reusedByB = 0
        var firstReuseA: (path: Int, a: Int, b: Int, other: Int)?
        var firstReuseB: (path: Int, a: Int, b: Int, other: Int)?
        var paired = 0
        var moved = 0
        var firstMoved: (path: Int, a: Int, b: Int)?
        func child(_ parent: Int, _ label: String) -> Int {
            parents.append(parent)
            labels.append(label)
            return parents.count - 1
        }
        while let (x, y, path) = pending.popLast() {
            if partnerOfA[x] == y && partnerOfB[y] == x { continue }
            if partnerOfA[x] >= 0 || partnerOfB[y] >= 0 {
                if partnerOfA[x] >= 0, partnerOfA[x] != y {
                    reusedByA += 1
                    if firstReuseA == nil { firstReuseA = (path, x, y, partnerOfA[x]) }
                }
                if partnerOfB[y] >= 0, partnerOfB[y] != x {
                    reusedByB += 1
                    if firstReuseB == nil { firstReuseB = (path, x, y, partnerOfB[y]) }
                }
                continue
            }
            partnerOfA[x] = y
            partnerOfB[y] = x
            paired += 1
            if x != y {
                moved += 1
                if firstMoved == nil { firstMoved = (path, x, y) }
            }
            switch (a.objects[x], b.objects[y]) {
            case (.array(let left), .array(let right)), (.set(let left), .set(let right)):
                guard left.count == right.count else { continue }
                for index in left.indices.reversed() where a.objects.indices.contains(left[index]) && b.objects.indices.contains(right[index]) {
                    pending.append((left[index], right[index], child(path, "[\(index)]")))
                }
            case (.dictionary(let keysX, let valuesX), .dictionary(let keysY, let valuesY)):
                guard keysX.count == valuesX.count, keysY.count == valuesY.count else { continue }
                // Entries by key text: the key order is the graph report's business.
                var positions: [String: Int] = [:]
                for (position, key) in keysY.enumerated() {
                    if b.objects.indices.contains(key), case .string(let text) = b.objects[key], positions[text] == nil { positions[text] = position }
                }
                for (position, key) in keysX.enumerated().reversed() {
                    guard a.objects.indices.contains(key), case .string(let text) = a.objects[key], let other = positions[text],
                          a.objects.indices.contains(valuesX[position]), b.objects.indices.contains(valuesY[other]) else { continue }
                    let entry = child(path, "." + text.excerptForMessage(32))
                    pending.append((valuesX[position], valuesY[other], entry))
                    pending.append((key, keysY[other], child(entry, " (its key)")))
                }
            default:
                continue
            }
        }
        func spelled(_ node: Int) -> String {
            var parts: [String] = []
            var current = node
            while current > 0, parts.count < 64 {
                parts.append(labels[current])
                current = parents[current]
            }
            let text = parts.reversed().joined()
            return text.isEmpty ? "the top" : text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        var lines: [String] = []
        if let first = firstReuseA {
            lines.append("object reuse in the property list: for \(reusedByA) \(reusedByA == 1 ? "reference" : "references") A points at an object it refers to elsewhere too, where B stores an equal object again (first \(spelled(first.path)): A #\(first.a), B #\(first.b) besides #\(first.other))")
        }
        if let first = firstReuseB {
            lines.append("object reuse in the property list: for \(reusedByB) \(reusedByB == 1 ? "reference" : "references") B points at an object it refers to elsewhere too, where A stores an equal object again (first \(spelled(first.path)): B #\(first.b), A #\(first.a) besides #\(first.other))")
        }
        if lines.isEmpty, let first = firstMoved {
            lines.append("object order in the property list: \(moved) of \(paired) objects sit at other positions in the files (first \(spelled(first.path)): A #\(first.a), B #\(first.b))")
        }
        return lines
    }

    static func graphLayout(_ a: ArchiveGraph, _ b: ArchiveGraph, _ diff: ArchiveDiff) -> [String] {
        var lines: [String] = []
        if !a.headerKeyOrder.isExactlyEqual(to: b.headerKeyOrder) {
            lines.append("header key order: A \(a.headerKeyOrder.joined(separator: ", ")), B \(b.headerKeyOrder.joined(separator: ", "))")
        }
        let topA = a.top.map(\.key), topB = b.top.map(\.key)
        if !topA.isExactlyEqual(to: topB), Set(topA) == Set(topB) {
            lines.append("$top key order: A \(topA.prefix(8).joined(separator: ", ")), B \(topB.prefix(8).joined(separator: ", "))")
        }
        let renumbered = diff.matchedObjects.filter { $0.a != $0.b }
        if let first = renumbered.first {
            lines.append("object order: \(renumbered.count) of \(diff.matchedObjects.count) matched objects have another UID, first \(diff.paths.keyPath(first.path)) (A #\(first.a), B #\(first.b))")
        }
        if a.objects.count != b.objects.count {
            var line = "uniquing in $objects: A has \(a.objects.count) objects, B \(b.objects.count)"
            let repeatsA = repeatedValues(a), repeatsB = repeatedValues(b)
            if repeatsA.count != repeatsB.count {
                line += "; equal values stored as separate objects: A \(repeatsA.count), B \(repeatsB.count)"
                if let example = (repeatsA.count > repeatsB.count ? repeatsA : repeatsB).first {
                    line += " (for example \(example))"
                }
            }
            lines.append(line)
        }
        var reordered = 0
        var firstReordered: String?
        for pair in diff.matchedObjects {
            guard case .instance(let x) = a.objects[pair.a], case .instance(let y) = b.objects[pair.b] else { continue }
            let keysX = x.storage.keys, keysY = y.storage.keys
            guard keysX.count == keysY.count, !keysX.isExactlyEqual(to: keysY) else { continue }
            reordered += 1
            if firstReordered == nil {
                firstReordered = "\(diff.paths.keyPath(pair.path)): A \(keysX.prefix(6).map { $0.excerptForMessage(32) }.joined(separator: ", ")), B \(keysY.prefix(6).map { $0.excerptForMessage(32) }.joined(separator: ", "))"
            }
        }
        if let firstReordered {
            lines.append("dictionary key order: \(reordered) objects store their keys in another order, first \(firstReordered)")
        }
        return lines
    }

    /// Plain values that appear as more than one object in `$objects`, described.
    static func repeatedValues(_ graph: ArchiveGraph) -> [String] {
        var seen: [PropertyListValue: Int] = [:]
        var repeats: [String] = []
        for object in graph.objects {
            let value: PropertyListValue
            switch object {
            case .string(let string): value = .string(string)
            case .integer(let integer): value = .integer(integer)
            case .real(let real): value = .real(real)
            case .data(let bytes): value = .data(bytes)
            case .date(let date): value = .date(date)
            default: continue
            }
            seen[value, default: 0] += 1
            if seen[value] == 2 { repeats.append(DiffText.describe(value)) }
        }
        return repeats
    }
}
