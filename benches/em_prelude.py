"""The start the generated scaling traces share: thread 1 attaches queue 1, forks the posting
threads 2.. and loops. Imported by gen_handlers.py and gen_race3.py."""


def write_looper_and_posters(out, posters):
    """Writes `1 START` and the looper/poster set-up to `out`; returns the next line's index."""
    lines = ["THREADINIT tid:1", "ATTACH-Q tid:1 queue:1"]
    for p in range(posters):
        lines += [f"FORK par-tid:1 child-tid:{2 + p}", f"THREADINIT tid:{2 + p}"]
    lines.append("LOOP tid:1 queue:1")
    out.write("1 START\n")
    idx = 2
    for line in lines:
        out.write(f"{idx} {line}\n")
        idx += 1
    return idx
