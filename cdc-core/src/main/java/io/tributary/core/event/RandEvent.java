package io.tributary.core.event;

/** RAND_EVENT (13): the two RAND() seeds, {@code seed1(8) seed2(8)}. */
public record RandEvent(long seed1, long seed2) implements EventBody {

    static RandEvent read(EventReader r) {
        return new RandEvent(r.u64("seed1"), r.u64("seed2"));
    }
}
