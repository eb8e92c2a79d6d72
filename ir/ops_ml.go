package ir

// This file declares the facts of the ai.onnx.ml ops, the training ops and the ai.onnx text ops
// (see ops.go for what each field means).

var mlOps = [...]OpInfo{
	{Key: op("RegexFullMatch"), In: ar(1, 1), Out: ar(1, 1), Types: stringX},
	{Key: op("StringConcat"), In: ar(2, 2), Out: ar(1, 1), Types: stringOps},
	{Key: op("StringNormalizer"), In: ar(1, 1), Out: ar(1, 1), Types: stringX},
	{Key: op("StringSplit"), In: ar(1, 1), Out: ar(2, 2), Types: stringX},
	{Key: op("TfIdfVectorizer"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "ArrayFeatureExtractor"), In: ar(2, 2), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "Binarizer"), In: ar(1, 1), Out: ar(1, 1), Cost: CostElementwise},
	{Key: opIn(mlDomain, "Cast"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "CategoryMapper"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "DictVectorizer"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "FeatureVectorizer"), In: ar(1, -1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "Imputer"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "LabelEncoder"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "LinearClassifier"), In: ar(1, 1), Out: ar(2, 2)},
	{Key: opIn(mlDomain, "LinearRegressor"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "Normalizer"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "OneHotEncoder"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "SVMClassifier"), In: ar(1, 1), Out: ar(2, 2)},
	{Key: opIn(mlDomain, "SVMRegressor"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "Scaler"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "TreeEnsemble"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "TreeEnsembleClassifier"), In: ar(1, 1), Out: ar(2, 2)},
	{Key: opIn(mlDomain, "TreeEnsembleRegressor"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(mlDomain, "ZipMap"), In: ar(1, 1), Out: ar(1, 1)},
	{Key: opIn(trainingDomain, "Adagrad"), In: ar(3, -1), Out: ar(1, -1), Cost: CostElementwise},
	{Key: opIn(trainingDomain, "Adam"), In: ar(3, -1), Out: ar(1, -1), Cost: CostElementwise},
	{Key: opIn(trainingDomain, "Gradient"), In: ar(0, -1), Out: ar(1, -1)},
	{Key: opIn(trainingDomain, "Momentum"), In: ar(3, -1), Out: ar(1, -1), Cost: CostElementwise},
}
