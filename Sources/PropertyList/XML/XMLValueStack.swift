/// A stack whose elements are moved, never copied: pushed when read, then moved in one block
/// into the container that closes over them. With `[Element]`, the same hand-over is a copy
/// (a retain per element) and a removal (a release and a destroy per element), which was about
/// a tenth of the reader's time.
///
/// The owner must call ``release()`` exactly once, on every path (the parser does it in a
/// `defer`).
struct XMLValueStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
    }

    func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func push(_ element: __owned Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    mutating func popLast() -> Element {
        count -= 1
        return (base + count).move()
    }

    /// Moves every element from `start` on into a new array.
    mutating func popArray(from start: Int) -> [Element] {
        // reserveCapacity and append specialise fully; Array(unsafeUninitializedCapacity:)
        // goes through an unspecialised allocator that looks up generic metadata each time.
        var result: [Element] = []
        result.reserveCapacity(count - start)
        for index in start..<count { result.append((base + index).move()) }
        count = start
        return result
    }

    /// Moves the element at `index` out; the caller must then ``forgetMoved(from:)`` it.
    @inline(__always)
    func move(at index: Int) -> Element {
        (base + index).move()
    }

    /// Marks everything from `start` on as moved out already.
    @inline(__always)
    mutating func forgetMoved(from start: Int) {
        count = start
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        base[index]
    }
}
