import PropertyList

/// `keyedarchive graph FILE --dot`: an archive's object graph in Graphviz's DOT language.
///
/// Each object or collection is one box, labelled with its UID and class (`#2 Pilot`) and its
/// inline fields (`name: "Amelia"`, as `dump` shows them); a field that refers to an object is
/// an edge labelled with its key to that object's box. A shared object is one box with several
/// incoming edges; a reference back into an object that contains it (a cycle) is dashed.
/// Every text is the dump's (escapes and all), then escaped for a DOT string.
package enum ArchiveGraphDOT {
    /// Lines of fields shown in one box before the rest is counted.
    static let maximumLines = 16
    /// Characters of one line of a label before it is cut.
    static let maximumLineLength = 100
    /// The default cap on boxes drawn.
    package static let defaultMaximumBoxes = 2_000
    /// The first line of every DOT file this writes: how `keyedarchive graph` knows a file it may replace.
    package static let signature = "// keyedarchive graph --dot"

    /// The DOT text of `model` from `start` (a node of it; nil for `$top`), boxes at most
    /// `maximumDepth` below it (nil: all) and at most `maximumBoxes` boxes.
    package static func render(_ model: ArchiveGraphModel, start: Int? = nil, maximumDepth: Int? = nil,
                               maximumBoxes: Int = defaultMaximumBoxes, title: String = "") -> String {
        let children = model.children()
        let first = model.firstOccurrences()
        let nodes = model.nodes
        var out = "\(signature)\n// \(escapeComment(title))\ndigraph archive {\n"
        out += "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        func isBox(_ index: Int) -> Bool { nodes[index].kind == .object || nodes[index].kind == .container }

        // Boxes to draw, found breadth-first: (node, depth); -1 is `$top`.
        var drawn = Set<Int>()
        var queue: [(node: Int, depth: Int)] = []
        var head = 0
        var truncatedBoxes = 0
        if let start {
            queue.append((start, 0))
        } else {
            queue.append((-1, 0))
        }
        drawn.insert(queue[0].node)
        var edges: [(from: Int, to: Int, label: String, back: Bool)] = []
        var boxText: [Int: String] = [:]
        while head < queue.count {
            let (box, depth) = queue[head]
            head += 1
            var lines: [String] = []
            var omitted = 0
            if box < 0 {
                lines.append("$top")
            } else {
                let node = nodes[box]
                lines.append(headline(node))
                if let note = node.note { lines.append("(\(note))") }
            }
            let members = box < 0 ? model.roots : (isBox(box) ? children[box] : [])
            for member in members {
                let node = nodes[member]
                switch node.kind {
                case .value:
                    if lines.count <= maximumLines {
                        lines.append(labelled(node, node.uid >= 0 ? "#\(node.uid) \(node.text)" : node.text))
                    } else {
                        omitted += 1
                    }
                case .reference:
                    if let target = first[node.uid], isBox(target) {
                        edges.append((box, target, node.label, node.isBackReference))
                    } else if lines.count <= maximumLines {
                        lines.append(labelled(node, "-> #\(node.uid) \(node.text)"))
                    } else {
                        omitted += 1
                    }
                case .object, .container:
                    if let maximumDepth, depth + 1 > maximumDepth {
                        if lines.count <= maximumLines {
                            lines.append(labelled(node, "#\(node.uid >= 0 ? String(node.uid) : "") \(node.text) … (below --depth)"))
                        } else {
                            omitted += 1
                        }
                        continue
                    }
                    edges.append((box, member, node.label, false))
                    if !drawn.contains(member) {
                        if drawn.count >= maximumBoxes {
                            truncatedBoxes += 1
                            continue
                        }
                        drawn.insert(member)
                        queue.append((member, depth + 1))
                    }
                }
            }
            if omitted > 0 { lines.append("… \(omitted) more") }
            boxText[box] = lines.map { escape(cut($0)) + "\\l" }.joined()
        }
        // Targets of references not drawn themselves (beyond the depth, outside the start): stubs.
        var stubs = Set<Int>()
        for edge in edges where !drawn.contains(edge.to) && !stubs.contains(edge.to) {
            if drawn.count + stubs.count >= maximumBoxes {
                continue
            }
            stubs.insert(edge.to)
        }
        for (box, _) in queue {
            out += "  \(id(box)) [label=\"\(boxText[box] ?? "")\"\(box < 0 ? ", shape=plaintext" : "")];\n"
        }
        for stub in stubs.sorted() {
            let text = escape(cut(headline(nodes[stub]))) + "\\l" + escape("(shown elsewhere)") + "\\l"
            out += "  \(id(stub)) [label=\"\(text)\", style=dotted];\n"
        }
        for edge in edges where drawn.contains(edge.to) || stubs.contains(edge.to) {
            var attributes = "label=\"\(escape(cut(edge.label)))\""
            if edge.back { attributes += ", style=dashed, constraint=false, color=\"#b03030\"" }
            out += "  \(id(edge.from)) -> \(id(edge.to)) [\(attributes)];\n"
        }
        let notDrawn = truncatedBoxes + edges.filter { !drawn.contains($0.to) && !stubs.contains($0.to) }.count
        if notDrawn > 0 || model.truncated {
            var note = "not drawn: \(notDrawn) more objects past the \(maximumBoxes)-box limit (--max-nodes)"
            if model.truncated { note += "; the graph read stopped at \(model.nodes.count) nodes" }
            out += "  truncated [label=\"\(escape(note))\", shape=note];\n"
        }
        out += "}\n"
        return out
    }

    private static func id(_ node: Int) -> String { node < 0 ? "top" : "n\(node)" }

    private static func headline(_ node: ArchiveGraphModel.Node) -> String {
        switch node.kind {
        case .object, .container: return node.uid >= 0 ? "#\(node.uid) \(node.text)" : node.text
        case .value: return node.uid >= 0 ? "#\(node.uid) \(node.text)" : node.text
        case .reference: return "-> #\(node.uid) \(node.text)"
        }
    }

    private static func labelled(_ node: ArchiveGraphModel.Node, _ text: String) -> String {
        node.label.isEmpty ? text : "\(node.label): \(text)"
    }

    private static func cut(_ line: String) -> String {
        line.count > maximumLineLength ? String(line.prefix(maximumLineLength)) + "…" : line
    }

    /// `text` inside a DOT double-quoted string: a backslash (which would start an escape such
    /// as `\N` or `\l`) and a quote escaped; a control character (none is left in the dump's
    /// text; a safety net) as a space.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || MessageText.needsEscape(scalar): out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` in a `//` comment: one line (``escape(_:)`` leaves no line break).
    private static func escapeComment(_ text: String) -> String {
        escape(text.escapedForMessage)
    }
}
