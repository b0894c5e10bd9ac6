package io.tributary.core.naming;

/**
 * Rows of a shard cannot be written in the shape of their logical table at that global position: the shard's
 * table was changed in a way the logical one was not (a type narrowed, a column of another type, a DDL the
 * shards ran differently), or its TABLE_MAP disagrees with the shape it should be in. The message names the
 * logical table, the shard and physical table, and both shapes. The pipeline stops on it before writing the
 * transaction's rows.
 */
public final class ShapeConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public ShapeConflictException(String message) {
        super(message);
    }
}
