"""The us-gaap concepts each lexicon metric means: how a question's metric finds the filer's own tagged fact.

Listed most specific first; a filer uses one of them for a line item (Apple tags net sales as
``RevenueFromContractWithCustomerExcludingAssessedTax``, others as ``Revenues``). Only concepts whose meaning is
the metric itself are here: a concept that is a part or a variant of it (``RevenueFromRelatedParties``) is not.
"""

from __future__ import annotations

_GAAP = "us-gaap:"

_CONCEPTS: dict[str, tuple[str, ...]] = {
    "revenue": (
        "Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
        "RevenueFromContractWithCustomerIncludingAssessedTax", "SalesRevenueNet",
    ),
    "cost of goods sold": ("CostOfGoodsAndServicesSold", "CostOfRevenue", "CostOfGoodsSold"),
    "gross profit": ("GrossProfit",),
    "research and development expense": ("ResearchAndDevelopmentExpense",),
    "selling general and administrative expense": ("SellingGeneralAndAdministrativeExpense",),
    "operating expenses": ("OperatingExpenses",),
    "operating income": ("OperatingIncomeLoss",),
    "interest expense": ("InterestExpense", "InterestExpenseNonoperating"),
    "other income expense": ("NonoperatingIncomeExpense", "OtherNonoperatingIncomeExpense"),
    "pretax income": (
        "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
        "IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
    ),
    "income tax expense": ("IncomeTaxExpenseBenefit",),
    "net income": ("NetIncomeLoss", "ProfitLoss"),
    "income from continuing operations": ("IncomeLossFromContinuingOperations",),
    "net income attributable to shareholders": ("NetIncomeLoss",),
    "basic earnings per share": ("EarningsPerShareBasic",),
    "diluted earnings per share": ("EarningsPerShareDiluted",),
    "earnings per share": ("EarningsPerShareDiluted", "EarningsPerShareBasic"),
    "dividends per share": ("CommonStockDividendsPerShareDeclared", "CommonStockDividendsPerShareCashPaid"),
    "cash and cash equivalents": ("CashAndCashEquivalentsAtCarryingValue",),
    "accounts receivable": ("AccountsReceivableNetCurrent",),
    "inventories": ("InventoryNet",),
    "current assets": ("AssetsCurrent",),
    "property plant and equipment": ("PropertyPlantAndEquipmentNet",),
    "goodwill": ("Goodwill",),
    "total assets": ("Assets",),
    "accounts payable": ("AccountsPayableCurrent",),
    "current liabilities": ("LiabilitiesCurrent",),
    "long term debt": ("LongTermDebtNoncurrent",),
    "total liabilities": ("Liabilities",),
    "shareholders equity": (
        "StockholdersEquity", "StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
    ),
    "total liabilities and equity": ("LiabilitiesAndStockholdersEquity",),
    "retained earnings": ("RetainedEarningsAccumulatedDeficit",),
    "cash from operations": ("NetCashProvidedByUsedInOperatingActivities",),
    "cash from investing": ("NetCashProvidedByUsedInInvestingActivities",),
    "cash from financing": ("NetCashProvidedByUsedInFinancingActivities",),
    "capital expenditure": ("PaymentsToAcquirePropertyPlantAndEquipment",),
    "depreciation and amortization": (
        "DepreciationDepletionAndAmortization", "DepreciationAmortizationAndAccretionNet",
    ),
    "stock based compensation": ("ShareBasedCompensation", "AllocatedShareBasedCompensationExpense"),
    "dividends paid": ("PaymentsOfDividends", "PaymentsOfDividendsCommonStock"),
    "share repurchases": ("PaymentsForRepurchaseOfCommonStock",),
    "shares outstanding": ("CommonStockSharesOutstanding",),
    "deferred revenue": ("ContractWithCustomerLiabilityCurrent",),
    "comprehensive income": ("ComprehensiveIncomeNetOfTax",),
}

# What a concept says beyond the metric that maps to it: 'earnings per share' answered from the diluted tag
# must say so.
CONCEPT_QUALIFIERS: dict[str, str] = {
    _GAAP + "EarningsPerShareDiluted": "diluted",
    _GAAP + "EarningsPerShareBasic": "basic",
}

# Metrics a company's primary statements report: a document that holds none of their facts holds no statements.
STATEMENT_METRICS: frozenset[str] = frozenset({
    "revenue", "net income", "operating income", "total assets", "total liabilities", "shareholders equity",
    "cash from operations", "gross profit", "cost of goods sold", "operating expenses", "pretax income",
    "income tax expense", "basic earnings per share", "diluted earnings per share", "earnings per share",
    "cash and cash equivalents", "current assets", "current liabilities", "total liabilities and equity",
})


def concepts_for(metric: str) -> tuple[str, ...]:
    """The prefixed us-gaap concepts that state ``metric`` (empty when the lexicon maps none)."""
    return tuple(_GAAP + c for c in _CONCEPTS.get(metric, ()))


def statement_concepts() -> tuple[str, ...]:
    """Every concept of a primary-statement metric."""
    return tuple(dict.fromkeys(c for m in sorted(STATEMENT_METRICS) for c in concepts_for(m)))
