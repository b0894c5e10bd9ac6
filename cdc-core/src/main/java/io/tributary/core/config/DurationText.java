package io.tributary.core.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as configuration writes them: a number with a unit {@code ms, s, m, h, d} ({@code 100ms},
 * {@code 10 s}, {@code 8H}), {@code 0}, or ISO-8601 ({@code PT10S}). One parser for every key that takes a
 * duration ({@code cdc.*}, {@code binlog.*}, {@code dump.*}), beside {@link ByteSize} for sizes.
 */
public final class DurationText {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

    private DurationText() {
    }

    /**
     * Parses a duration.
     *
     * @param examples what the key's error message offers as examples, e.g. {@code "100ms, 10s, 5m"}
     * @throws IllegalArgumentException "not a duration (e.g. <examples>)", without the value
     */
    public static Duration parse(String text, String examples) {
        String s = text.strip();
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = DURATION.matcher(s);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2).toLowerCase(Locale.ROOT)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration (e.g. " + examples + ")");
        }
    }
}
