from cosim.core.timeline import EventQueue, Priority


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
