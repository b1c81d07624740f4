extension BinaryPropertyListTree {
    /// The canonical JSON of the file, handed to `output` in chunks as it is made: the text
    /// ``PropertyListJSONRenderer/render(_:maximumDepth:maximumByteCount:output:)`` makes of the
    /// file's value (the same chunks, so a text stopped by the byte budget stops at the same
    /// byte), made from the bytes without the value. `bytes` must be those the plan was made from.
    /// - Throws: ``PropertyListError/Code/sizeLimitExceeded`` once the text would be longer
    ///   than `maximumByteCount`, the only fault left once the plan is made.
    package func renderJSON(_ bytes: UnsafeRawBufferPointer, maximumByteCount: Int = PropertyListJSONRenderer.defaultMaximumByteCount,
                            output: (ArraySlice<UInt8>) -> Void) throws(PropertyListError) {
        try PropertyListJSONRenderer.streamText(maximumDepth: options.maximumDepth, maximumByteCount: maximumByteCount, output: output) { renderer throws(PropertyListError) in
            try renderJSON(bytes, into: &renderer)
        }
    }

    /// An open container of the JSON walk.
    private struct JSONFrame {
        var frame: Frame
        let depth: Int
        let wrapped: Bool
        let memberDepth: Int
    }

    private func renderJSON(_ bytes: UnsafeRawBufferPointer, into renderer: inout JSONTextBuilder) throws(PropertyListError) {
        var stack: [JSONFrame] = []
        /// Writes `node` at `depth`: a scalar whole, a container opened (and pushed) or, empty, whole.
        func begin(_ node: Int, depth: Int) throws(PropertyListError) {
            guard Self.isContainer(marker(bytes, node)) else {
                try renderer.append(scalarValue(bytes, node), depth: depth)
                return
            }
            try PropertyListError.checkNesting(depth, maximumDepth: renderer.maximumDepth)
            let opened = frame(bytes, node)
            if opened.count == 0 {
                renderer.appendASCII(opened.isDictionary ? "{}" : "[]")
                try renderer.endValue()
                return
            }
            if opened.isDictionary {
                let wrapped = JSONTextBuilder.isWrapped(opened.count, firstKey: string(bytes, child(bytes, of: opened, at: 0, key: true)))
                let memberDepth = renderer.openDictionary(wrapped: wrapped, depth: depth)
                stack.append(JSONFrame(frame: opened, depth: depth, wrapped: wrapped, memberDepth: memberDepth))
            } else {
                renderer.out.append(0x5B)
                stack.append(JSONFrame(frame: opened, depth: depth, wrapped: false, memberDepth: depth))
            }
        }
        try begin(top, depth: 0)
        while let last = stack.indices.last {
            let open = stack[last]
            let position = open.frame.next
            guard position < open.frame.count else {
                if open.frame.isDictionary {
                    renderer.closeDictionary(wrapped: open.wrapped, depth: open.depth)
                } else {
                    renderer.closeArray(depth: open.depth)
                }
                stack.removeLast()
                try renderer.endValue()
                continue
            }
            stack[last].frame.next = position &+ 1
            if open.frame.isDictionary {
                renderer.beginMember(position, key: string(bytes, child(bytes, of: open.frame, at: position, key: true)), memberDepth: open.memberDepth)
            } else {
                renderer.beginElement(position, depth: open.depth)
            }
            try begin(child(bytes, of: open.frame, at: position), depth: open.depth &+ 1)
        }
    }
}
