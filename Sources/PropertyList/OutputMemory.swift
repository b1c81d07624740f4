/// The memory of the writers' output buffers (``BinaryByteSink``, `XMLOutputBuffer`): `malloc`'s,
/// so that it can grow and shrink with `realloc`. Above glibc's mmap threshold a buffer is a
/// mapping of its own, and `realloc` remaps its pages: growing copies nothing and never holds an
/// old and a new buffer at once, and shrinking gives pages back to the system.
enum OutputMemory {
    /// `memory` (nil for none yet) resized to `byteCount` bytes, its contents kept.
    static func reallocate(_ memory: UnsafeMutableRawPointer?, to byteCount: Int) -> UnsafeMutableRawPointer {
        // As `UnsafeMutableRawPointer.allocate` does when memory runs out.
        guard let resized = LibC.reallocate(memory, byteCount: max(byteCount, 1)) else { fatalError("OutputMemory: out of memory for \(byteCount) bytes") }
        return resized
    }

    static func release(_ memory: UnsafeMutableRawPointer) {
        LibC.release(memory)
    }

    /// The first `count` bytes of `memory` as an array. They are copied from the end a slice at a
    /// time, and `memory` shrinks behind each slice (it stays allocated, at least `count` bytes
    /// smaller): a finished document is never held twice over. Returns the new capacity.
    static func moveIntoArray(_ memory: inout UnsafeMutableRawPointer, count: Int, capacity: inout Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let destination = buffer.baseAddress else { return }
            var remaining = count
            while remaining > 0 {
                let slice = min(remaining, moveSlice)
                remaining -= slice
                UnsafeMutableRawPointer(destination + remaining).copyMemory(from: memory + remaining, byteCount: slice)
                // A shrink that fails leaves the block as it was, which is still correct.
                if remaining >= moveSlice, let shrunk = LibC.reallocate(memory, byteCount: remaining) {
                    memory = shrunk
                    capacity = remaining
                }
            }
            initialized = count
        }
    }
    private static let moveSlice = 4 << 20
}
