package io.tributary.test.bench;

import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** The look of the benchmarks' bar charts: white, gridded, legend below, values on the bars, y from zero. */
public final class BenchCharts {

    private BenchCharts() {
    }

    public static CategoryChart bars(String title, String xTitle, String yTitle, int width, String decimalPattern) {
        CategoryChart chart = new CategoryChartBuilder().width(width).height(560).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS); // below the plot: never over a bar
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setPlotGridLinesVisible(true);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setDecimalPattern(decimalPattern);
        chart.getStyler().setLabelsVisible(true);
        return chart;
    }
}
