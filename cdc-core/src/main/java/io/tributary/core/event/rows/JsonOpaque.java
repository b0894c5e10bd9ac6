package io.tributary.core.event.rows;

import java.util.Arrays;

/**
 * A MySQL binary JSON opaque value of a type that has no JSON text form of its own (BLOB, BIT, GEOMETRY,
 * ...). MySQL prints it as {@code "base64:typeNN:<base64>"}.
 *
 * @param fieldType the MySQL column type code stored with the value
 */
public record JsonOpaque(int fieldType, byte[] data) {
    public JsonOpaque {
        data = data.clone();
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonOpaque other && other.fieldType == fieldType && Arrays.equals(other.data, data);
    }

    @Override
    public int hashCode() {
        return 31 * fieldType + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "base64:type" + fieldType + ":" + java.util.Base64.getEncoder().encodeToString(data);
    }
}
