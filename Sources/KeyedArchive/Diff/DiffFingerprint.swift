import PropertyList

extension DiffSide {
    /// Steps one fingerprint may take: enough for any key or set element seen in Apple's
    /// archives, and a bound on the work of matching (elements × steps).
    static let fingerprintSteps = 512

    /// A bounded canonical text that stands for a value when set elements and non-string
    /// dictionary keys are matched: the value itself for plain values; for an object its class
    /// and fields (sorted by name) with the objects under it written the same way.
    ///
    /// Canonical means that two equal subgraphs give the same text however they are stored:
    /// the entries of a dictionary and the elements of a set are unordered, so each is written
    /// on its own and the texts are sorted (by their UTF-8 bytes) before they are joined. Nor
    /// does it depend on sharing (which ``ArchiveDiff/Options/valuesOnly`` ignores, and the walk
    /// compares on its own): an object met again is written out again, except one that contains
    /// itself, written `@n` where `n` is how deep the object it refers back to is.
    ///
    /// At most ``fingerprintSteps`` steps: a set's or dictionary's entries share what is left
    /// evenly (a share does not depend on the order they are stored in), one that has fewer
    /// steps left than entries is written as its class and count, and a text cut short ends in
    /// `…`. Texts cut at the budget may collide; such elements are then matched in stored order.
    func fingerprint(_ value: PropertyListValue) -> String {
        if case .leaf(let leaf) = node(value) { return DiffText.exact(leaf) }
        var stack = [FingerprintFrame(items: [.value(value)], budget: Self.fingerprintSteps, path: [:])]
        while true {
            let top = stack.count - 1
            if stack[top].group != nil {
                // An unordered group: start its next entry, or close it and hand it to the parent.
                if let entry = stack[top].group?.nextEntry() {
                    stack.append(FingerprintFrame(items: entry.reversed(), budget: stack[top].group?.share ?? 0, path: stack[top].path))
                    continue
                }
                guard let group = stack.popLast()?.group else { break }
                let parent = stack.count - 1
                stack[parent].text += group.opening + group.texts.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined() + ");"
                stack[parent].budget -= group.used
                if let index = group.object { stack[parent].path[index] = nil }
                continue
            }
            guard stack[top].budget > 0, let item = stack[top].items.popLast() else {
                // This sequence is done (or out of steps): its text goes to the group it is an
                // entry of, or is the fingerprint.
                let done = stack.removeLast()
                let text = done.items.isEmpty ? done.text : done.text + "…"
                guard !stack.isEmpty else { return text }
                stack[stack.count - 1].group?.texts.append(text)
                stack[stack.count - 1].group?.used += done.initialBudget - done.budget
                continue
            }
            stack[top].budget -= 1
            switch item {
            case .text(let piece):
                stack[top].text += piece
            case .close(let index):
                stack[top].text += ");"
                stack[top].path[index] = nil
            case .value(let value):
                switch node(value) {
                case .null: stack[top].text += "nil;"
                case .leaf(let leaf): stack[top].text += DiffText.exact(leaf) + ";"
                case .container(let container):
                    switch container {
                    case .array(let elements):
                        stack[top].text += "array("
                        stack[top].items.append(.text(");"))
                        for element in elements.reversed() { stack[top].items.append(.value(element)) }
                    case .set(let elements):
                        if let group = FingerprintGroup(opening: "set(", entries: elements.map { [.value($0)] }, budget: stack[top].budget, object: nil) {
                            stack.append(FingerprintFrame(group: group, path: stack[top].path))
                        } else {
                            stack[top].text += "set(\(elements.count)…);"
                        }
                    case .dictionary(let dictionary):
                        // Keys are strings: sorted, they are already a canonical order.
                        stack[top].text += "dictionary("
                        stack[top].items.append(.text(");"))
                        for entry in dictionary.entries.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).reversed() {
                            stack[top].items.append(.value(entry.value))
                            stack[top].items.append(.text(entry.key + "="))
                        }
                    default: break
                    }
                case .object(let index):
                    if let depth = stack[top].path[index] {
                        stack[top].text += "@\(depth);"
                        continue
                    }
                    stack[top].path[index] = stack[top].path.count
                    switch shape(ofObject: index) {
                    case .fields(let entries):
                        stack[top].text += (descriptor(of: index)?.name ?? "object") + "("
                        stack[top].items.append(.close(index))
                        for entry in entries.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).reversed() {
                            stack[top].items.append(.value(entry.value))
                            stack[top].items.append(.text(entry.key + "="))
                        }
                    case .array(let elements):
                        stack[top].text += (descriptor(of: index)?.name ?? "collection") + "("
                        stack[top].items.append(.close(index))
                        for element in elements.reversed() { stack[top].items.append(.value(element)) }
                    case .set(let elements):
                        let opening = (descriptor(of: index)?.name ?? "set") + "("
                        if let group = FingerprintGroup(opening: opening, entries: elements.map { [.value($0)] }, budget: stack[top].budget, object: index) {
                            stack.append(FingerprintFrame(group: group, path: stack[top].path))
                        } else {
                            stack[top].text += opening + "\(elements.count)…);"
                            stack[top].path[index] = nil
                        }
                    case .dictionary(let keys, let values):
                        let opening = (descriptor(of: index)?.name ?? "dictionary") + "("
                        let entries: [[FingerprintItem]] = zip(keys, values).map { [.value($0.0), .text(":"), .value($0.1)] }
                        if let group = FingerprintGroup(opening: opening, entries: entries, budget: stack[top].budget, object: index) {
                            stack.append(FingerprintFrame(group: group, path: stack[top].path))
                        } else {
                            stack[top].text += opening + "\(entries.count)…);"
                            stack[top].path[index] = nil
                        }
                    case .classDescriptor(let descriptor):
                        stack[top].text += "class " + descriptor.name + "();"
                        stack[top].path[index] = nil
                    }
                }
            }
        }
        return ""
    }
}

/// What is still to be written in a fingerprint: a value, or a piece of text.
enum FingerprintItem {
    case value(PropertyListValue)
    case text(String)
    /// The end of the object at this index: it is no longer on the path.
    case close(Int)
}

/// The entries of a set or dictionary being fingerprinted: each is written on its own, with an
/// equal share of the steps left, and the texts are sorted once all are done.
struct FingerprintGroup {
    let opening: String
    let entries: [[FingerprintItem]]
    /// The set or dictionary object (nil for one stored inline), on the path until the group ends.
    let object: Int?
    let share: Int
    var next = 0
    var texts: [String] = []
    /// Steps the entries took together.
    var used = 0

    /// Nil when the steps left are fewer than the entries (nothing would be written of them).
    init?(opening: String, entries: [[FingerprintItem]], budget: Int, object: Int?) {
        guard entries.count <= budget else { return nil }
        self.opening = opening
        self.object = object
        self.entries = entries
        share = entries.isEmpty ? 0 : budget / entries.count
    }

    mutating func nextEntry() -> [FingerprintItem]? {
        guard next < entries.count else { return nil }
        next += 1
        return entries[next - 1]
    }
}

/// One level of a fingerprint: a sequence of items written in order, or an unordered group.
struct FingerprintFrame {
    var text = ""
    /// Still to write, last first.
    var items: [FingerprintItem] = []
    var budget: Int
    let initialBudget: Int
    /// The objects being written (this one inside them), by index, with their depth.
    var path: [Int: Int]
    var group: FingerprintGroup?

    init(items: [FingerprintItem], budget: Int, path: [Int: Int]) {
        self.items = items
        self.budget = budget
        initialBudget = budget
        self.path = path
    }

    init(group: FingerprintGroup, path: [Int: Int]) {
        self.group = group
        budget = 0
        initialBudget = 0
        self.path = path
    }
}
