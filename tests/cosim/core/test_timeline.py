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


def test_quiet_ticks_count_the_ticks_before_anything_else():
    def tick():
        pass

    q = EventQueue()
    q.push(10, Priority.PHYSICS_STEP, tick)
    assert q.quiet_ticks(0, 10, 95, tick) == 9  # up to the end
    q.push(55, Priority.TIMER, lambda: None)
    assert q.quiet_ticks(0, 10, 95, tick) == 5  # ticks at 10..50, then the timer
    q.push(40, Priority.SAMPLE, lambda: None)
    assert q.quiet_ticks(0, 10, 95, tick) == 4  # the tick at 40 runs before a sample at 40
    q.push(30, Priority.PHYSICS_STEP, lambda: None)
    assert q.quiet_ticks(0, 10, 95, tick) == 2  # something else of a tick's priority at 30 may run first
    assert q.quiet_ticks(10, 10, 95, tick) == 0  # the first entry is not the next tick
    other = EventQueue()
    other.push(10, Priority.PHYSICS_STEP, lambda: None)
    assert other.quiet_ticks(0, 10, 95, tick) == 0  # nor is it this tick


def test_an_engine_takes_the_events_it_runs_and_the_rest_stay_in_order():
    q = EventQueue()
    for t in (50, 10, 40, 20, 30):
        q.push(t, Priority.TIMER if t % 20 else Priority.SAMPLE, lambda: None)
    assert q.peek()[0] == 10 and len(q) == 5
    taken = q.take(lambda e: e[1] == Priority.SAMPLE)
    assert sorted(e[0] for e in taken) == [20, 40]
    assert [q.pop()[0] for _ in range(len(q))] == [10, 30, 50]
    assert q.peek() is None and q.peek_time() is None and q.take(lambda e: True) == []
