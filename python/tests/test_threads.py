# The GIL is released while the library searches: another Python thread
# keeps running throughout the search.
import threading
import time


def test_a_search_lets_another_thread_count(db, queries):
    window = {}
    done = threading.Event()

    def search():
        window["start"] = time.perf_counter()
        window["hits"] = db.search(queries[:2], device="cpu", threads=1)
        window["end"] = time.perf_counter()
        done.set()

    samples, count = [], 0
    t = threading.Thread(target=search)
    t.start()
    while not done.is_set():
        count += 1
        if count % 256 == 0:
            samples.append((time.perf_counter(), count))
    t.join()
    start, end = window["start"], window["end"]
    during = [c for ts, c in samples if start <= ts <= end]
    assert len(window["hits"]) > 0
    assert during and during[-1] - during[0] > 10000, "the counter stood still during the search"
    # Held through the search, the GIL would leave one gap as long as the
    # search; released, the counter never stops for long.
    times = [start] + [ts for ts, _ in samples if start <= ts <= end] + [end]
    longest = max(b - a for a, b in zip(times, times[1:]))
    assert longest < (end - start) / 2, "the counter stopped for {:.3f} s of a {:.3f} s search".format(
        longest, end - start)


def test_two_threads_search_one_database_at_once(db, queries):
    alone = [db.search(queries[i:i + 1], device="cpu", threads=1) for i in range(2)]
    together = [None, None]

    def search(i):
        together[i] = db.search(queries[i:i + 1], device="cpu", threads=1)

    threads = [threading.Thread(target=search, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone
