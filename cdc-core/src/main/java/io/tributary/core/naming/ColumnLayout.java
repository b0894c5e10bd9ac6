package io.tributary.core.naming;

import io.tributary.core.event.ColumnType;
import io.tributary.core.event.TableMapEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * What must be equal for two physical tables to share one global table id: what a consumer needs to
 * decode their row images alike. Column types as written, their metadata (lengths, precision, fractional
 * digits, real ENUM/SET types), nullability, and the column names when the shard writes them
 * ({@code binlog_row_metadata=FULL}).
 */
public record ColumnLayout(List<ColumnType> types, List<Integer> metadata, String nullable, List<String> names) {

    public ColumnLayout {
        types = List.copyOf(types);
        metadata = List.copyOf(metadata);
        names = List.copyOf(names);
    }

    public static ColumnLayout of(TableMapEvent map) {
        StringBuilder nulls = new StringBuilder();
        java.util.BitSet n = map.nullable();
        for (int i = 0; i < map.columnCount(); i++) {
            nulls.append(n.get(i) ? 'Y' : 'N');
        }
        return new ColumnLayout(map.columnTypes(), map.metadata(), nulls.toString(), map.optional().columnNames());
    }

    @Override
    public String toString() {
        List<String> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add((names.size() > i ? names.get(i) + " " : "") + types.get(i) + "(" + metadata.get(i) + ")"
                    + (nullable.charAt(i) == 'Y' ? "" : " NOT NULL"));
        }
        return "[" + String.join(", ", cols) + "]";
    }
}
