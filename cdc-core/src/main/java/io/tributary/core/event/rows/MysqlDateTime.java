package io.tributary.core.event.rows;

import java.time.LocalDate;
import java.time.LocalDateTime;

/**
 * A DATE or DATETIME value exactly as MySQL stores it, zero parts included: {@code 0000-00-00} and
 * {@code 2024-00-10} are legal MySQL values that {@link LocalDateTime} cannot hold, so this record keeps the
 * parts and converts only on request.
 *
 * @param micros fractional seconds in microseconds (0-999999); 0 for DATE
 */
public record MysqlDateTime(int year, int month, int day, int hour, int minute, int second, int micros) {

    /** A DATE value (time parts zero). */
    public static MysqlDateTime ofDate(int year, int month, int day) {
        return new MysqlDateTime(year, month, day, 0, 0, 0, 0);
    }

    /** True when the year, month or day is zero ({@code 0000-00-00}, {@code 2024-00-00}, ...). */
    public boolean hasZeroDatePart() {
        return year == 0 || month == 0 || day == 0;
    }

    /** The value as a {@link LocalDateTime}, or {@code null} when a date part is zero. */
    public LocalDateTime toLocalDateTimeOrNull() {
        return hasZeroDatePart() ? null : LocalDateTime.of(year, month, day, hour, minute, second, micros * 1000);
    }

    /** The date part as a {@link LocalDate}, or {@code null} when a date part is zero. */
    public LocalDate toLocalDateOrNull() {
        return hasZeroDatePart() ? null : LocalDate.of(year, month, day);
    }

    /** {@code YYYY-MM-DD}. */
    public String formatDate() {
        return String.format("%04d-%02d-%02d", year, month, day);
    }

    /** {@code YYYY-MM-DD hh:mm:ss} followed by {@code fsp} fractional digits when {@code fsp > 0}. */
    public String format(int fsp) {
        return formatDate() + String.format(" %02d:%02d:%02d", hour, minute, second) + MysqlTime.fraction(micros, fsp);
    }

    @Override
    public String toString() {
        return format(micros == 0 ? 0 : 6);
    }
}
