// Figure 12 of paper 000 redrawn from the GPU join rows (`alloclab join --format csv`,
// DIR/join/**.csv): join time against the tuples of each table (log x), measured points per
// allocator (Direct Output included), the model's predicted join time dashed in the same colour
// (validation/join_prediction.hpp: Direct Output's measured join plus the allocator's predicted
// GETPAGE time). One figure per skew; and the table of every row's predictions.
#pragma once

#include <optional>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"
#include "alloclab/render/plot.hpp"
#include "alloclab/render/table.hpp"
#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/studies/join_seed_prediction.hpp"

namespace alloclab::render {

// The plot's data: per allocator (in the rows' order of first appearance) a series of its verified
// rows' (tuples, join_ms) at `skew`, then a dashed series of the predictions' (tuples,
// model_join_ms) where the model predicts a time, or of the seeds' predictions' join_ms
// (join_seed_prediction.hpp). Empty series are left out.
PlotSpec join_figure_plot(const std::vector<Record>& rows,
                          const std::vector<validation::JoinPrediction>& predictions, double skew,
                          const std::vector<validation::SeedPrediction>& seeds = {});

// The figure (rendered by gnuplot); none where no verified row has this skew.
std::optional<Figure> join_figure(const std::vector<Record>& rows,
                                  const std::vector<validation::JoinPrediction>& predictions,
                                  double skew,
                                  const std::vector<validation::SeedPrediction>& seeds = {});

// Every prediction beside its measured join time: the steps per GETPAGE of the model and of the
// replay (and the replay's scaled point), GETPAGE's predicted milliseconds and the predicted join
// time of each with its error against the measured one ("-" where there is no fit).
Table join_prediction_table(const std::vector<validation::JoinPrediction>& predictions);

// The seeds' rows (join_seed_prediction.hpp): how each was replayed, its replayed counts per
// GETPAGE beside the GPU's cycles per GETPAGE, the isolated run that calibrates it, the predicted
// and measured allocator cost and join time, and whether the row is judged (or why it has no
// prediction).
Table join_seed_table(const std::vector<validation::SeedPrediction>& seeds);

}  // namespace alloclab::render
