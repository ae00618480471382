from cosim.core.timeline import EventQueue, Priority, quiet_ticks


def test_events_run_in_time_then_priority_then_insertion_order():
    q = EventQueue()
    seen = []
    q.push(20, Priority.TIMER, lambda: seen.append("t20-timer-a"))
    q.push(10, Priority.LATCH, lambda: seen.append("t10-latch"))
    q.push(10, Priority.TIMER, lambda: seen.append("t10-timer-a"))
    q.push(20, Priority.TIMER, lambda: seen.append("t20-timer-b"))
    q.push(10, Priority.PHYSICS_STEP, lambda: seen.append("t10-step"))
    q.push(10, Priority.TIMER, lambda: seen.append("t10-timer-b"))
    while len(q):
        q.pop()[3]()
    assert seen == ["t10-step", "t10-timer-a", "t10-timer-b", "t10-latch", "t20-timer-a", "t20-timer-b"]


def test_ties_never_compare_actions():
    q = EventQueue()
    for _ in range(100):
        q.push(5, Priority.TIMER, object())  # would raise TypeError if the heap compared actions
    assert q.peek_time() == 5 and len(q) == 100


def test_quiet_ticks_count_the_ticks_before_anything_else():
    def tick():
        pass

    q = EventQueue()
    q.push(10, Priority.PHYSICS_STEP, tick)
    assert quiet_ticks(q.heap, 0, 10, 95, tick) == 9  # up to the end
    q.push(55, Priority.TIMER, lambda: None)
    assert quiet_ticks(q.heap, 0, 10, 95, tick) == 5  # ticks at 10..50, then the timer
    q.push(40, Priority.SAMPLE, lambda: None)
    assert quiet_ticks(q.heap, 0, 10, 95, tick) == 4  # the tick at 40 runs before a sample at 40
    q.push(30, Priority.PHYSICS_STEP, lambda: None)
    assert quiet_ticks(q.heap, 0, 10, 95, tick) == 2  # something else of a tick's priority at 30 may run first
    assert quiet_ticks(q.heap, 10, 10, 95, tick) == 0  # the first entry is not the next tick
    other = EventQueue()
    other.push(10, Priority.PHYSICS_STEP, lambda: None)
    assert quiet_ticks(other.heap, 0, 10, 95, tick) == 0  # nor is it this tick
