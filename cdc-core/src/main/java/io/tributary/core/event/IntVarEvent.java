package io.tributary.core.event;

/**
 * INTVAR_EVENT (5): {@code type(1) value(8)}; type 1 is LAST_INSERT_ID, 2 is INSERT_ID.
 */
public record IntVarEvent(int type, long value) implements EventBody {

    static IntVarEvent read(EventReader r) {
        return new IntVarEvent(r.u8("intvar type"), r.u64("intvar value"));
    }
}
