package io.tributary.core.event;

import java.util.Arrays;

/**
 * USER_VAR_EVENT (14): {@code name_length(4) name is_null(1)} then, when not NULL,
 * {@code value_type(1) charset(4) value_length(4) value [flags(1)]}. The value bytes are kept as written.
 *
 * @param name      variable name without the {@code @}
 * @param isNull    whether the value is NULL (then the other fields are 0 / empty)
 * @param valueType Item_result type: 0 STRING, 1 REAL, 2 INT, 3 ROW, 4 DECIMAL
 * @param charset   collation id of a string value
 * @param value     raw value bytes
 * @param flags     1 = UNSIGNED; 0 when absent
 */
public record UserVarEvent(String name, boolean isNull, int valueType, long charset, byte[] value, int flags)
        implements EventBody {

    public UserVarEvent {
        value = value.clone();
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    static UserVarEvent read(EventReader r) {
        long nameLength = r.u32("user var name length");
        String name = r.string(nameLength, "user var name");
        boolean isNull = r.u8("user var is_null") != 0;
        if (isNull) {
            return new UserVarEvent(name, true, 0, 0, new byte[0], 0);
        }
        int type = r.u8("user var type");
        long charset = r.u32("user var charset");
        long length = r.u32("user var value length");
        byte[] value = r.bytes(length, "user var value");
        int flags = r.hasRemaining() ? r.u8("user var flags") : 0;
        return new UserVarEvent(name, false, type, charset, value, flags);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserVarEvent u && name.equals(u.name) && isNull == u.isNull && valueType == u.valueType
                && charset == u.charset && flags == u.flags && Arrays.equals(value, u.value);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "UserVarEvent[@" + name + (isNull ? " = NULL" : ", type=" + valueType + ", charset=" + charset
                + ", " + value.length + " bytes, flags=" + flags) + "]";
    }
}
