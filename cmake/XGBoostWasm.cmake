# XGBoost for the WebAssembly build: the browser's Tune panel fits the same gradient-boosted trees
# as the native `graphcost tune`. Debian ships XGBoost as a host library only, so this compiles its
# Debian source package (third_party/xgboost, with third_party/dmlc-core beside it; scripts/setup.sh
# fetches both and applies cmake/patches/) into a static library, single-threaded:
#   - no OpenMP and no pthreads (the app is built without them), DMLC_ENABLE_STD_THREAD=0;
#   - DMLC_LOG_CUSTOMIZE: dmlc's logging through xgboost's own logger (src/logging.cc);
#   - the patches make 32-bit size_t reductions and one narrowing initialiser compile on wasm32.
# The source list is the CPU library of xgboost's own CMake (src/CMakeLists.txt) minus the plugins,
# the federated and GPU parts; rabit and dmlc's io are in because c_api.cc links against them.
set(xgboost_dir "${GRAPHCOST_THIRD_PARTY}/xgboost")
set(dmlc_dir "${GRAPHCOST_THIRD_PARTY}/dmlc-core")
foreach(required "${xgboost_dir}/include/xgboost/c_api.h" "${dmlc_dir}/include/dmlc/base.h")
  if(NOT EXISTS "${required}")
    message(FATAL_ERROR "${required} is missing: run scripts/setup.sh first")
  endif()
endforeach()

set(x "${xgboost_dir}/src")
set(d "${dmlc_dir}/src")
add_library(graphcost_xgboost STATIC
  ${x}/c_api/c_api.cc ${x}/c_api/c_api_error.cc
  ${x}/collective/communicator.cc ${x}/collective/socket.cc
  ${x}/common/charconv.cc ${x}/common/column_matrix.cc ${x}/common/common.cc
  ${x}/common/hist_util.cc ${x}/common/host_device_vector.cc ${x}/common/io.cc
  ${x}/common/json.cc ${x}/common/numeric.cc ${x}/common/pseudo_huber.cc
  ${x}/common/quantile.cc ${x}/common/random.cc ${x}/common/survival_util.cc
  ${x}/common/threading_utils.cc ${x}/common/timer.cc ${x}/common/version.cc
  ${x}/data/data.cc ${x}/data/ellpack_page.cc ${x}/data/gradient_index.cc
  ${x}/data/gradient_index_format.cc ${x}/data/gradient_index_page_source.cc
  ${x}/data/iterative_dmatrix.cc ${x}/data/proxy_dmatrix.cc ${x}/data/simple_dmatrix.cc
  ${x}/data/sparse_page_dmatrix.cc ${x}/data/sparse_page_raw_format.cc
  ${x}/gbm/gblinear.cc ${x}/gbm/gblinear_model.cc ${x}/gbm/gbm.cc ${x}/gbm/gbtree.cc
  ${x}/gbm/gbtree_model.cc
  ${x}/global_config.cc ${x}/learner.cc ${x}/logging.cc
  ${x}/linear/linear_updater.cc ${x}/linear/updater_coordinate.cc ${x}/linear/updater_shotgun.cc
  ${x}/metric/auc.cc ${x}/metric/elementwise_metric.cc ${x}/metric/metric.cc
  ${x}/metric/multiclass_metric.cc ${x}/metric/rank_metric.cc ${x}/metric/survival_metric.cc
  ${x}/objective/adaptive.cc ${x}/objective/aft_obj.cc ${x}/objective/hinge.cc
  ${x}/objective/multiclass_obj.cc ${x}/objective/objective.cc ${x}/objective/rank_obj.cc
  ${x}/objective/regression_obj.cc
  ${x}/predictor/cpu_predictor.cc ${x}/predictor/predictor.cc
  ${x}/tree/constraints.cc ${x}/tree/param.cc ${x}/tree/tree_model.cc ${x}/tree/tree_updater.cc
  ${x}/tree/updater_approx.cc ${x}/tree/updater_colmaker.cc ${x}/tree/updater_prune.cc
  ${x}/tree/updater_quantile_hist.cc ${x}/tree/updater_refresh.cc ${x}/tree/updater_sync.cc
  ${xgboost_dir}/rabit/src/allreduce_base.cc ${xgboost_dir}/rabit/src/rabit_c_api.cc
  ${xgboost_dir}/rabit/src/engine.cc
  ${d}/io.cc ${d}/data.cc ${d}/recordio.cc ${d}/io/line_split.cc ${d}/io/recordio_split.cc
  ${d}/io/indexed_recordio_split.cc ${d}/io/input_split_base.cc ${d}/io/filesys.cc
  ${d}/io/local_filesys.cc)
target_include_directories(graphcost_xgboost SYSTEM PUBLIC "${xgboost_dir}/include" "${dmlc_dir}/include")
target_include_directories(graphcost_xgboost SYSTEM PRIVATE "${xgboost_dir}/rabit/include")
target_compile_definitions(graphcost_xgboost PRIVATE DMLC_LOG_CUSTOMIZE=1
  XGBOOST_BUILTIN_PREFETCH_PRESENT=1 DMLC_ENABLE_STD_THREAD=0)
# Third-party code: its warnings are not graphcost's to fix.
target_compile_options(graphcost_xgboost PRIVATE -w)
add_library(XGBoost::XGBoost ALIAS graphcost_xgboost)
