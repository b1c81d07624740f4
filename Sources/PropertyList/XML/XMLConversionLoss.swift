/// What a trip through XML loses (Docs/PropertyLists.md, "What a trip through XML does not
/// keep"), named for the user of `keyedarchive convert --to xml`: the first value, in document
/// order, that XML reads back as another, with its path (`root.a[2].b`) and how it changed.
package enum XMLConversionLoss {
    /// The first loss found by reading the XML `written` (made from `original`) back and
    /// comparing the two values; nil when every value survives (key order and sharing aside,
    /// which XML never keeps) or when the XML does not read back at all. The reference the
    /// streamed check (`BinaryPropertyListTree.firstXMLLoss`) is held to.
    package static func firstLoss(of original: PropertyListValue, readingBack written: [UInt8]) -> String? {
        guard let back = try? XMLPropertyListReader.read(written).value else { return nil }
        // The path of the pair being compared is a trail of steps, cut back to each pair's depth
        // as it is taken and spelt out only for the loss reported: a string made for every pair
        // cost two thirds of a large conversion.
        var trail: [PathStep] = []
        func path() -> String {
            var text = "root"
            for step in trail {
                switch step {
                case .index(let index): text += "[\(index)]"
                case .key(let key): text += ".\(key.excerptForMessage(64))"
                }
            }
            return text
        }
        var pending: [(original: PropertyListValue, back: PropertyListValue, depth: Int, step: PathStep?)] = [(original, back, 0, nil)]
        while let (lhs, rhs, depth, step) = pending.popLast() {
            if trail.count > depth { trail.removeLast(trail.count - depth) }
            if let step { trail.append(step) }
            switch (lhs, rhs) {
            case (.array(let left), .array(let right)):
                guard left.count == right.count else { return "\(path()): \(left.count) elements became \(right.count)" }
                for index in left.indices.reversed() { pending.append((left[index], right[index], trail.count, .index(index))) }
            case (.dictionary(let left), .dictionary(let right)):
                guard left.count == right.count else { return "\(path()): \(left.count) keys became \(right.count)" }
                for entry in left.entries.reversed() {
                    guard let other = right[entry.key] else { return "\(path()): key \"\(entry.key.excerptForMessage(64))\" did not survive" }
                    pending.append((entry.value, other, trail.count, .key(entry.key)))
                }
            default:
                if let loss = scalarLoss(lhs, rhs, path: path) { return loss }
            }
        }
        return nil
    }

    /// One step of a path: into an array's element or a dictionary's value.
    private enum PathStep {
        case index(Int)
        case key(String)
    }

    /// How `original` changed into `back` (not two arrays, nor two dictionaries: a container
    /// here differs from what it became by its kind alone), at `path`; nil when it did not.
    package static func scalarLoss(_ original: PropertyListValue, _ back: PropertyListValue, path: () -> String) -> String? {
        switch (original, back) {
        case (.real(let left), .real(let right)):
            guard left != right else { return nil }
            if case .float32(let narrow) = left, case .float64(let wide) = right, Double(narrow).bitPattern == wide.bitPattern {
                return "\(path()): the 32-bit real \(narrow) becomes a 64-bit real"
            }
            return "\(path()): real \(realText(left.doubleValue)) reads back as \(realText(right.doubleValue))"
        case (.integer(let left), .integer(let right)):
            guard left != right else { return nil }
            if left.high == right.high, left.low == right.low {
                return "\(path()): the 16-byte integer \(left) becomes an 8-byte integer"
            }
            return "\(path()): integer \(left) reads back as \(right)"
        case (.string(let left), .string(let right)):
            guard !left.unicodeScalars.elementsEqual(right.unicodeScalars) else { return nil }
            return "\(path()): string \"\(left.excerptForMessage(64))\" reads back as \"\(right.excerptForMessage(64))\""
        default:
            guard original != back else { return nil }
            return "\(path()): \(describe(original)) reads back as \(describe(back))"
        }
    }

    /// A real for a message: NaNs with their bits, since the payload is what XML loses.
    private static func realText(_ value: Double) -> String {
        value.isNaN ? "NaN 0x\(String(value.bitPattern, radix: 16))" : "\(value)"
    }

    private static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .date(let date): return "date \(date.secondsSinceReferenceDate)"
        case .uid(let uid): return "UID \(uid.value)"
        case .integer(let integer): return "integer \(integer)"
        case .dictionary: return "a dictionary"
        case .array: return "an array"
        default: return "\(value)".excerptForMessage(64)
        }
    }

    /// What ``XMLPropertyListReader`` reads back from the element ``XMLPropertyListWriter``
    /// writes for the scalar `value` (one the writer takes), without writing the document:
    /// reals through their written text, dates floored to their written second, integers in
    /// the reader's storage form, text without one leading U+FEFF. Containers are returned as
    /// they are.
    package static func readBack(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .string(let text):
            return .string(readBackText(text))
        case .integer(let integer):
            // The writer prints the value in decimal; the reader keeps a non-negative one as unsigned.
            if let signed = integer.int64Value { return .integer(signed < 0 ? PropertyListInteger(signed) : PropertyListInteger(UInt64(signed))) }
            if let unsigned = integer.uint64Value { return .integer(PropertyListInteger(unsigned)) }
            return value
        case .real(let real):
            let parsed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: XMLRealText.maximumLength) { buffer -> Double? in
                guard let start = buffer.baseAddress else { return nil }
                return XMLRealText.parse(UnsafeBufferPointer(start: start, count: XMLRealText.write(real.doubleValue, to: start)))
            }
            return parsed.map { .real(.float64($0)) } ?? value
        case .date(let date):
            let seconds = date.secondsSinceReferenceDate
            guard PropertyListCalendar.isWritable(seconds) else { return value }
            let fields = PropertyListCalendar.writerFields(seconds)
            // The reader gathers the year's digits in 32 bits, wrapping, as Core Foundation does.
            return .date(PropertyListDate(secondsSinceReferenceDate: PropertyListCalendar.absoluteTime(
                year: Int32(truncatingIfNeeded: fields.year), month: Int(fields.month), day: Int(fields.day),
                hour: fields.hour, minute: fields.minute, second: fields.second)))
        default:
            return value
        }
    }

    /// A string or key as XML reads it back: one leading U+FEFF dropped.
    package static func readBackText(_ text: String) -> String {
        text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
    }
}
