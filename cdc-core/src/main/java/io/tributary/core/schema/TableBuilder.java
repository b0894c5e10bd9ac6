package io.tributary.core.schema;

import java.util.ArrayList;
import java.util.List;

/** A table being changed by one DDL statement ({@link SchemaDdl}); used by one thread, then built. */
final class TableBuilder {
    final TableName name;
    final List<SchemaColumn> columns = new ArrayList<>();
    final List<SchemaIndex> indexes = new ArrayList<>();
    String engine = "InnoDB";
    String charset;
    String collation;
    String comment;
    final List<String> options = new ArrayList<>();

    TableBuilder(TableName name, String charset, String collation) {
        this.name = name;
        this.charset = charset;
        this.collation = collation;
    }

    TableBuilder(SchemaTable t) {
        this.name = t.name();
        columns.addAll(t.columns());
        indexes.addAll(t.indexes());
        engine = t.engine();
        charset = t.charset();
        collation = t.collation();
        comment = t.comment();
        options.addAll(t.options());
    }

    int indexOfColumn(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(column)) {
                return i;
            }
        }
        return -1;
    }

    /** The column's name as the table spells it; an unknown column is refused. */
    String columnName(String column) {
        int i = indexOfColumn(column);
        if (i < 0) {
            throw new IllegalArgumentException("Key column '" + column + "' doesn't exist in table " + name);
        }
        return columns.get(i).name();
    }

    SchemaColumn column(String column) {
        return columns.get(indexOfColumn(columnName(column)));
    }

    void addColumn(SchemaColumn c, String after, boolean first) {
        if (indexOfColumn(c.name()) >= 0) {
            throw new IllegalArgumentException("Duplicate column name '" + c.name() + "'");
        }
        columns.add(position(after, first, columns.size()), c);
    }

    private int position(String after, boolean first, int otherwise) {
        if (first) {
            return 0;
        }
        if (after != null) {
            int i = indexOfColumn(after);
            if (i < 0) {
                throw new IllegalArgumentException("Unknown column '" + after + "' in '" + name + "'");
            }
            return i + 1;
        }
        return otherwise;
    }

    void dropColumn(String column, boolean ifExists) {
        int i = indexOfColumn(column);
        if (i < 0) {
            if (ifExists) {
                return;
            }
            throw new IllegalArgumentException("Can't DROP COLUMN `" + column + "`; check that it exists");
        }
        String dropped = columns.remove(i).name();
        List<SchemaIndex> kept = new ArrayList<>();
        for (SchemaIndex x : indexes) {
            List<SchemaIndex.Part> parts = x.columns().stream().filter(p -> !p.column().equalsIgnoreCase(dropped)).toList();
            if (!parts.isEmpty()) {
                kept.add(new SchemaIndex(x.name(), x.kind(), parts, x.comment()));
            }
        }
        indexes.clear();
        indexes.addAll(kept);
    }

    /** MODIFY / CHANGE: the column {@code old} becomes {@code c}, in place unless moved. */
    void replaceColumn(String old, SchemaColumn c, String after, boolean first) {
        int i = indexOfColumn(old);
        if (i < 0) {
            throw new IllegalArgumentException("Unknown column '" + old + "' in '" + name + "'");
        }
        String oldName = columns.get(i).name();
        if (!oldName.equalsIgnoreCase(c.name()) && indexOfColumn(c.name()) >= 0) {
            throw new IllegalArgumentException("Duplicate column name '" + c.name() + "'");
        }
        SchemaColumn kept = c;
        if (primaryColumns().contains(oldName.toLowerCase(java.util.Locale.ROOT))) {
            kept = c.withNullable(false);
        }
        columns.remove(i);
        columns.add(after != null || first ? position(after, first, i) : i, kept);
        renameInIndexes(oldName, c.name());
    }

    void renameColumn(String old, String to) {
        SchemaColumn c = column(old);
        replaceColumn(c.name(), c.withName(to), null, false);
    }

    private void renameInIndexes(String old, String to) {
        if (old.equals(to)) {
            return;
        }
        for (int k = 0; k < indexes.size(); k++) {
            SchemaIndex x = indexes.get(k);
            List<SchemaIndex.Part> parts = x.columns().stream()
                    .map(p -> p.column().equalsIgnoreCase(old) ? new SchemaIndex.Part(to, p.length()) : p).toList();
            indexes.set(k, new SchemaIndex(x.name(), x.kind(), parts, x.comment()));
        }
    }

    private java.util.Set<String> primaryColumns() {
        java.util.Set<String> s = new java.util.HashSet<>();
        for (SchemaIndex x : indexes) {
            if (x.kind() == SchemaIndex.Kind.PRIMARY) {
                x.columns().forEach(p -> s.add(p.column().toLowerCase(java.util.Locale.ROOT)));
            }
        }
        return s;
    }

    void addIndex(SchemaIndex.Kind kind, String indexName, List<SchemaIndex.Part> parts, String comment) {
        String n;
        if (kind == SchemaIndex.Kind.PRIMARY) {
            if (indexes.stream().anyMatch(x -> x.kind() == SchemaIndex.Kind.PRIMARY)) {
                throw new IllegalArgumentException("Multiple primary key defined");
            }
            n = SchemaIndex.PRIMARY;
            for (SchemaIndex.Part p : parts) {
                int i = indexOfColumn(p.column());
                columns.set(i, columns.get(i).withNullable(false));
            }
        } else if (indexName != null) {
            n = indexName;
            if (hasIndex(n)) {
                throw new IllegalArgumentException("Duplicate key name '" + n + "'");
            }
        } else {
            // a server names an unnamed key after its first column, then _2, _3 ...
            String base = parts.get(0).column();
            n = base;
            for (int k = 2; hasIndex(n); k++) {
                n = base + "_" + k;
            }
        }
        indexes.add(new SchemaIndex(n, kind, parts, comment));
    }

    private boolean hasIndex(String n) {
        return indexes.stream().anyMatch(x -> x.name().equalsIgnoreCase(n));
    }

    void dropIndex(String indexName) {
        if (!indexes.removeIf(x -> x.name().equalsIgnoreCase(indexName))) {
            throw new IllegalArgumentException("Can't DROP INDEX `" + indexName + "`; check that it exists");
        }
    }

    void dropIndexIfExists(String indexName) {
        indexes.removeIf(x -> x.name().equalsIgnoreCase(indexName));
    }

    void renameIndex(String old, String to) {
        for (int k = 0; k < indexes.size(); k++) {
            SchemaIndex x = indexes.get(k);
            if (x.name().equalsIgnoreCase(old)) {
                indexes.set(k, new SchemaIndex(to, x.kind(), x.columns(), x.comment()));
                return;
            }
        }
        throw new IllegalArgumentException("Key '" + old + "' doesn't exist in table '" + name + "'");
    }

    /** {@code CONVERT TO CHARACTER SET}: every character column takes the table's new character set. */
    void convertColumns() {
        for (int i = 0; i < columns.size(); i++) {
            SchemaColumn c = columns.get(i);
            if (c.isCharacterType()) {
                String type = SqlTypes.textTypeFor(c.type(), c.charset(), charset);
                SchemaColumn converted = c.withCharset(charset, collation);
                columns.set(i, type.equals(c.type()) ? converted : new SchemaColumn(c.name(), type, c.args(), c.unsigned(),
                        c.zerofill(), charset, collation, c.nullable(), c.defaultValue(), c.autoIncrement(), c.onUpdate(),
                        c.comment(), c.extra()));
            }
        }
    }

    SchemaTable build() {
        List<SchemaIndex> sorted = new ArrayList<>(indexes);
        sorted.sort(SchemaDdl.serverOrder(columns));
        return new SchemaTable(name, columns, sorted, engine, charset, collation, comment, options);
    }
}
