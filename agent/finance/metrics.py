"""The finance metric table: every canonical metric with its topic, synonyms, abbreviations and, for derived
metrics, its :class:`~agent.finance.formulas.Formula`. The matching over this table is :mod:`agent.finance.lexicon`.
"""

from __future__ import annotations

from agent.finance.formulas import (
    PERCENT,
    Formula,
    FormulaKind,
    MetricDef,
    _days,
    _diff,
    _growth,
    _m,
    _margin,
    _ratio,
    _sum,
    _t,
    _turnover,
)

# ---------------------------------------------------------------------------------------------------------
# The lexicon. Synonyms are written singular where natural (plurals of the last word are generated);
# punctuation, "&" vs "and", hyphens and possessives are normalised away, so write them plainly.
# ---------------------------------------------------------------------------------------------------------
_REV, _COST, _PROF, _LIQ, _LEV = "Revenue", "Costs/Expenses", "Profitability", "Liquidity", "Leverage"


_CF, _BS, _PS, _GUID, _RISK, _OTHER = "Cash Flow", "Balance Sheet", "Per Share", "Guidance", "Risk", "Other"


_DEFS: list[MetricDef] = [
    # --- Revenue -----------------------------------------------------------------------------------------
    _m("revenue", _REV, [
        "revenue", "total revenue", "net revenue", "total net revenue", "net sales", "total net sales",
        "sales",
        "total sales", "operating revenue", "total operating revenue", "net operating revenue", "top line",
        "topline", "sales revenue", "net revenues and sales",
        # a card issuer's or a bank's headline line: the interest it pays is netted in, not a second metric
        "total revenues net of interest expense", "revenues net of interest expense",
    ], related=["segment revenue", "geographic revenue", "revenue growth"]),
    _m("segment revenue", _REV, [
        "segment revenue", "segment sales", "segment net sales", "revenue by segment", "net sales by segment",
        "sales by segment", "revenue by reportable segment", "net revenue by segment", "division revenue",
        "sales by business segment",
    ], related=["revenue", "segment operating income"], part_of="revenue"),
    _m("geographic revenue", _REV, [
        "revenue by geography", "revenue by geographic area", "net sales by geographic area",
        "revenue by region", "sales by region", "international revenue", "international sales",
        "domestic revenue", "geographic revenue", "sales by geographic area", "revenue by country",
    ], related=["revenue", "segment revenue"], part_of="revenue"),
    _m("revenue growth", _REV, [
        "revenue growth", "sales growth", "net sales growth", "growth in revenue", "growth in net sales",
        "topline growth", "top line growth",
    ], related=["revenue", "organic growth"], formula=_growth("revenue")),
    _m("organic growth", _REV, [
        "organic growth", "organic sales growth", "organic revenue growth", "organic sales",
        "organic revenue",
        "organic local currency sales", "constant currency growth", "constant currency revenue",
    ], related=["revenue growth", "revenue"]),
    _m("comparable sales", _REV, [
        "comparable sales", "comparable store sales", "same store sales", "comp sales", "like for like sales",
        "comparable sales growth", "comps",
    ], related=["revenue growth"]),
    _m("backlog", _REV, [
        "backlog", "order backlog", "remaining performance obligation", "total backlog", "unfilled orders",
    ], related=["revenue"]),
    _m("average revenue per user", _REV, [
        "average revenue per user", "average revenue per member", "average revenue per account",
        "average monthly revenue per paying membership", "revenue per subscriber",
    ], abbreviations=["ARPU", "ARPA"], related=["revenue"]),
    _m("revenue recognition", _REV, [
        "revenue recognition", "recognize revenue", "revenue is recognized", "revenues are recognized",
        "performance obligation",
    ], related=["revenue", "deferred revenue"]),
    # --- Costs / expenses --------------------------------------------------------------------------------
    _m("cost of goods sold", _COST, [
        "cost of goods sold", "cost of sales", "cost of revenue", "total cost of revenue",
        "cost of products sold",
        "cost of merchandise sold", "cost of net revenue", "cost of goods and services sold", "cost of sale",
        "total cost of sales", "cost of products", "cost of services", "cost of revenues and sales",
    ], abbreviations=["COGS"], related=["gross profit", "operating expenses"]),
    _m("operating expenses", _COST, [
        "operating expense", "total operating expense", "operating cost", "total costs and expenses",
        "costs and expenses", "operating costs and expenses", "total operating costs and expenses",
        "total expenses",
    ], abbreviations=["OPEX"], related=["selling general and administrative expense", "cost of goods sold"]),
    _m("selling general and administrative expense", _COST, [
        "selling general and administrative expense", "selling general and administrative",
        "selling general and administrative cost", "selling and administrative expense",
        "selling general administrative", "selling general and administrative expenses net",
        "marketing selling and administrative expense", "selling marketing and administrative expense",
    ], abbreviations=["SG&A", "SGA"], related=[
        "general and administrative expense", "sales and marketing expense", "operating expenses"]),
    _m("general and administrative expense", _COST, [
        "general and administrative expense", "general and administrative", "administrative expense",
        "general administrative expense",
    ], abbreviations=["G&A"], related=["selling general and administrative expense"]),
    _m("sales and marketing expense", _COST, [
        "sales and marketing expense", "sales and marketing", "selling and marketing expense",
        "selling and marketing", "marketing expense", "selling expense", "marketing and sales",
    ], abbreviations=["S&M"], related=["selling general and administrative expense", "advertising expense"]),
    _m("research and development expense", _COST, [
        "research and development expense", "research and development",
        "research development and engineering",
        "research and development cost", "technology and development", "product development",
        "research and engineering",
    ], abbreviations=["R&D"], related=["operating expenses"]),
    _m("advertising expense", _COST, [
        "advertising expense", "advertising cost", "advertising and promotion", "advertising and marketing",
        "media spend",
    ], related=["sales and marketing expense"]),
    _m("compensation and benefits expense", _COST, [
        "compensation and benefits", "salaries and wages", "wages", "salaries", "wage expense",
        "employee compensation", "personnel costs", "salaries and benefits", "payroll", "labor costs",
        "wages and benefits", "compensation expense",
    ], related=["operating expenses", "stock based compensation"]),
    _m("depreciation and amortization", _COST, [
        "depreciation and amortization", "depreciation amortization",
        "depreciation depletion and amortization",
        "depreciation and amortization expense", "amortization and depreciation",
    ], abbreviations=["D&A", "DD&A"],
        related=["depreciation", "amortization of intangible assets", "ebitda"]),
    _m("depreciation", _COST, [
        "depreciation", "depreciation expense",
    ], related=["depreciation and amortization", "accumulated depreciation"]),
    # A balance (what has been written off so far), not the year's expense: its own metric, so that neither is
    # read for the other.
    _m("accumulated depreciation", _BS, [
        "accumulated depreciation", "accumulated depreciation and amortization",
        "accumulated depreciation depletion and amortization", "less accumulated depreciation",
    ], related=["depreciation", "property plant and equipment"]),
    _m("amortization of intangible assets", _COST, [
        "amortization of intangible assets", "amortization of intangibles", "intangible asset amortization",
        "amortization of acquired intangible assets", "amortization of purchased intangibles",
    ], related=["depreciation and amortization", "intangible assets"]),
    _m("interest expense", _COST, [
        "interest expense", "interest expense net", "net interest expense", "interest cost",
        "interest charges",
        "interest and debt expense", "interest and other financing costs", "interest paid",
    ], related=["interest coverage ratio", "total debt", "interest income"]),
    _m("interest income", _OTHER, [
        "interest income", "interest and dividend income", "interest and other income", "investment income",
    ], related=["interest expense", "net interest income"]),
    _m("income tax expense", _COST, [
        "income tax expense", "provision for income taxes", "income taxes", "income tax provision",
        "tax expense",
        "provision for taxes", "benefit from income taxes", "provision for benefit from income taxes",
        "income tax benefit", "income tax expense benefit", "provision for taxes on income",
        "taxes on income",
    ], related=["effective tax rate", "pretax income"]),
    _m("restructuring costs", _COST, [
        "restructuring cost", "restructuring charge", "restructuring and other charges",
        "restructuring expense",
        "restructuring and impairment charges", "restructuring", "severance",
    ], related=["impairment charges"]),
    _m("stock based compensation", _COST, [
        "stock based compensation", "share based compensation", "equity based compensation",
        "stock compensation", "stock based compensation expense", "share based payment",
    ], abbreviations=["SBC"], related=["compensation and benefits expense"]),
    _m("impairment charges", _COST, [
        "impairment", "impairment charge", "asset impairment", "impairment of long lived assets",
        "impairment loss", "write down", "impairment and restructuring",
    ], related=["goodwill impairment", "restructuring costs"]),
    _m("goodwill impairment", _COST, [
        "goodwill impairment", "impairment of goodwill", "goodwill impairment charge",
    ], related=["goodwill", "impairment charges"]),
    _m("other income expense", _OTHER, [
        "other income", "other expense", "other income expense", "other expense income",
        "other nonoperating income", "non operating income", "nonoperating income", "other income net",
        "other expense net", "other income deductions net",
    ], related=["interest income", "interest expense"]),
    _m("net interest income", _PROF, [
        "net interest income",
    ], abbreviations=["NII"], related=["interest income", "interest expense", "net interest margin"]),
    # A bank's yield on its earning assets and its regulatory capital: percentages, never amounts of the income or
    # capital they are named after.
    _m("net interest margin", _PROF, [
        "net interest margin", "net interest yield", "net yield on interest earning assets",
    ], abbreviations=["NIM"], related=["net interest income"]),
    _m("common equity tier 1 ratio", _PROF, [
        "common equity tier 1 ratio", "common equity tier 1 capital ratio", "cet1 ratio", "cet1 capital ratio",
    ], abbreviations=["CET1"], related=["shareholders equity"]),
    # A bank's income statement: the fees and charges beside its interest, and what it costs to earn both.
    _m("noninterest income", _OTHER, [
        "noninterest income", "non-interest income", "non interest income", "total noninterest income",
        "total non-interest income",
    ], related=["net interest income", "noninterest expense"]),
    _m("noninterest expense", _COST, [
        "noninterest expense", "non-interest expense", "non interest expense", "total noninterest expense",
        "total non-interest expense", "noninterest expenses", "non-interest expenses",
    ], related=["noninterest income", "operating expenses"]),
    _m("efficiency ratio", _PROF, [
        "efficiency ratio", "cost to income ratio", "cost-to-income ratio", "cost income ratio",
    ], related=["noninterest expense", "net interest income"],
        formula=_ratio([_t("noninterest expense")], [_t("net interest income"), _t("noninterest income")], unit="%",
                       mult=PERCENT)),
    _m("provision for credit losses", _RISK, [
        "provision for credit losses", "provision for loan losses", "provisions for credit losses",
        "net write off rate", "net write offs",
    ], related=["accounts receivable", "allowance for credit losses"]),
    # The balance set aside (a contra-asset), not the year's provision: its own metric, so neither is read for
    # the other.
    _m("allowance for credit losses", _BS, [
        "allowance for credit losses", "credit loss reserve", "allowance for doubtful accounts",
        "allowance for loan losses", "allowance for uncollectible accounts", "allowance for bad debts",
    ], related=["accounts receivable", "provision for credit losses"]),
    # --- Profitability ----------------------------------------------------------------------------------
    _m("gross profit", _PROF, [
        "gross profit", "gross income", "gross profit dollars",
    ], abbreviations=["GP"], related=["gross margin"], formula=_diff("revenue", "cost of goods sold")),
    _m("gross margin", _PROF, [
        "gross margin", "gross profit margin", "gross margin percentage", "gross margin percent",
        "gross margin rate", "gross profit percentage", "gross profit as a percentage of revenue",
    ], abbreviations=["GM"], related=["gross profit"], formula=_margin("gross profit")),
    _m("cost of goods sold margin", _PROF, [
        "cost of goods sold margin", "cogs margin", "cost of sales as a percentage of net sales",
        "cost of sales as a percentage of revenue", "cost of revenue as a percentage of revenue",
        "cogs as a percentage of revenue", "cost of sales margin",
    ], related=["gross margin"], formula=_margin("cost of goods sold")),
    _m("operating income", _PROF, [
        "operating income", "operating profit", "income from operations", "operating earnings",
        "earnings from operations", "profit from operations", "income loss from operations",
        "operating income loss", "operating loss", "loss from operations", "total operating income",
        "total operating profit", "operating profit loss",
    ], related=["operating margin", "segment operating income", "ebit"],
        formula=_diff("gross profit", "operating expenses")),
    _m("operating margin", _PROF, [
        "operating margin", "operating profit margin", "operating income margin",
        "operating margin percentage",
        "operating income as a percentage of revenue", "operating income as a percentage of net sales",
        "operating income percent of sales", "operating margin rate", "operating income percentage",
    ], related=["operating income"], formula=_margin("operating income")),
    _m("segment operating income", _PROF, [
        "segment operating income", "segment operating profit", "segment profit", "segment income",
        "operating income by segment", "operating profit by segment",
        "division operating profit", "segment earnings", "segment results",
    ], related=["operating income", "segment revenue"], part_of="operating income"),
    _m("ebit", _PROF, [
        "earnings before interest and taxes", "earnings before interest and income taxes",
    ], abbreviations=["EBIT"], related=["operating income", "ebitda"],
        formula=_sum(_t("pretax income"), _t("interest expense"))),
    _m("ebitda", _PROF, [
        "earnings before interest taxes depreciation and amortization",
        "earnings before interest tax depreciation and amortization", "unadjusted ebitda",
    ], abbreviations=["EBITDA"], related=["ebit", "operating income", "ebitdar"],
        formula=_sum(_t("operating income"), _t("depreciation and amortization"))),
    _m("ebitdar", _PROF, [
        "earnings before interest taxes depreciation amortization and rent",
    ], abbreviations=["EBITDAR"], related=["ebitda"]),
    _m("ebitda margin", _PROF, [
        "ebitda margin", "unadjusted ebitda margin",
        "ebitda as a percentage of revenue",
    ], related=["ebitda"], formula=_margin("ebitda")),
    _m("pretax income", _PROF, [
        "income before income taxes", "earnings before income taxes", "pretax income", "pre tax income",
        "income before taxes", "income before provision for income taxes", "pretax earnings",
        "pre tax earnings",
        "income from continuing operations before income taxes", "profit before tax", "pre tax profit",
        "earnings before provision for income taxes", "income loss before income taxes",
        "income before income taxes and equity income",
    ], abbreviations=["EBT"], related=["net income", "income tax expense"]),
    _m("net income", _PROF, [
        "net income", "net earnings", "net profit", "net income loss", "net loss", "net earnings loss",
        "profit for the year", "net income including noncontrolling interest",
        "net income including noncontrolling interests",
        "bottom line", "consolidated net income",
    ], abbreviations=["NI"], related=["net income attributable to shareholders", "net margin",
                                       "income from continuing operations"]),
    # Net income less discontinued operations: the same figure only when a filer has none, so never a name of it.
    _m("income from continuing operations", _PROF, [
        "income from continuing operations", "earnings from continuing operations",
        "net income from continuing operations", "net earnings from continuing operations",
        "income loss from continuing operations", "profit from continuing operations",
        "loss from continuing operations", "net loss from continuing operations",
    ], related=["net income", "pretax income"]),
    _m("net income attributable to shareholders", _PROF, [
        "net income attributable", "net earnings attributable", "net income available to common shareholders",
        "net income available to common stockholders", "net income attributable to common shareholders",
        "net income attributable to shareholders", "net income applicable to common shareholders",
        "net loss attributable", "net income loss attributable", "net income to common shareholders",
    ], related=["net income"]),
    _m("net margin", _PROF, [
        "net margin", "net profit margin", "net income margin", "profit margin",
        "net income as a percentage of revenue",
        "net earnings margin",
    ], related=["net income"], formula=_margin("net income")),
    _m("return on assets", _PROF, [
        "return on assets", "return on average assets", "return on total assets",
    ], abbreviations=["ROA"], related=["net income", "total assets"],
        formula=_ratio([_t("net income")], [_t("total assets", average=True)], unit="%", mult=PERCENT)),
    _m("return on equity", _PROF, [
        "return on equity", "return on average equity", "return on shareholders equity",
        "return on stockholders equity", "return on average common equity",
    ], abbreviations=["ROE", "ROCE"], related=["net income", "shareholders equity"],
        formula=_ratio([_t("net income")], [_t("shareholders equity", average=True)], unit="%",
                       mult=PERCENT)),
    _m("return on invested capital", _PROF, [
        "return on invested capital", "return on capital", "return on capital employed",
    ], abbreviations=["ROIC"], related=["operating income"]),
    _m("asset turnover", _PROF, [
        "asset turnover", "total asset turnover", "asset turnover ratio",
    ], related=["revenue", "total assets"], formula=_turnover("revenue", "total assets")),
    _m("fixed asset turnover", _PROF, [
        "fixed asset turnover", "fixed asset turnover ratio", "ppe turnover", "ppne turnover",
    ], related=["revenue", "property plant and equipment"],
        formula=_turnover("revenue", "property plant and equipment")),
    _m("unusual items", _PROF, [
        "unusual item", "special item", "one time item", "non recurring item", "nonrecurring item",
        "gain on sale of business", "gain on divestiture", "gains on divestitures", "gain on sale",
        "unusual or infrequent item", "significant items",
    ], related=["net income"]),
    _m("comprehensive income", _OTHER, [
        "comprehensive income", "other comprehensive income", "accumulated other comprehensive income",
        "total comprehensive income",
    ], abbreviations=["AOCI", "OCI"], related=["net income"]),
    # --- Per share ----------------------------------------------------------------------------------------
    _m("earnings per share", _PS, [
        "earnings per share", "net income per share", "earnings per common share", "net earnings per share",
        "income per share", "net income per common share", "earnings loss per share", "net loss per share",
    ], abbreviations=["EPS"], related=["diluted earnings per share", "basic earnings per share"]),
    _m("diluted earnings per share", _PS, [
        "diluted earnings per share", "earnings per share diluted", "diluted net income per share",
        "net income per share diluted", "diluted eps", "eps diluted", "diluted net earnings per share",
        "net earnings per share diluted", "earnings per common share diluted",
        "diluted earnings per common share",
        "net income per common share diluted", "diluted net income per common share",
    ], related=["earnings per share", "basic earnings per share"]),
    _m("basic earnings per share", _PS, [
        "basic earnings per share", "earnings per share basic", "basic net income per share",
        "net income per share basic", "basic eps", "eps basic", "basic net earnings per share",
        "net earnings per share basic", "earnings per common share basic", "basic earnings per common share",
        "net income per common share basic", "basic net income per common share",
    ], related=["earnings per share", "diluted earnings per share"]),
    _m("dividends per share", _PS, [
        "dividends per share", "dividends declared per share", "dividends per common share",
        "cash dividends declared per share", "cash dividends declared per common share", "dividend per share",
        "dividends paid per share", "cash dividends per share", "quarterly dividend", "annual dividend",
    ], abbreviations=["DPS"], related=["dividends paid", "dividend payout ratio"]),
    _m("shares outstanding", _PS, [
        "shares outstanding", "weighted average shares outstanding", "weighted average number of shares",
        "common shares outstanding", "weighted average common shares", "diluted shares", "basic shares",
        "weighted average shares", "number of shares outstanding", "weighted average diluted shares",
    ], related=["earnings per share"]),
    _m("book value per share", _PS, [
        "book value per share", "book value per common share", "tangible book value per share",
    ], related=["shareholders equity"]),
    _m("dividend yield", _PS, ["dividend yield"], related=["dividends per share"]),
    _m("price to earnings ratio", _PS, [
        "price to earnings ratio", "price earnings ratio", "price to earnings", "earnings multiple",
    ], abbreviations=["P/E"], related=["earnings per share"]),
    # --- Cash flow ----------------------------------------------------------------------------------------
    _m("cash from operations", _CF, [
        "cash from operations", "cash flow from operations", "cash flows from operations",
        "operating cash flow",
        "net cash provided by operating activities", "net cash from operating activities",
        "cash provided by operating activities", "net cash provided by used in operating activities",
        "net cash used in provided by operating activities", "cash flows from operating activities",
        "cash flow from operating activities", "net cash provided by operations",
        "cash provided by operations",
        "cash generated from operations", "cash generated by operating activities",
        "net cash generated from operating activities", "cash from operating activities",
        "net cash provided by operating activity", "net cash flows from operating activities",
        "net cash provided from operating activities", "cash flows provided by operating activities",
        "operating activities cash flow", "operating activities",
    ], abbreviations=["CFO", "OCF"], related=["free cash flow"]),
    _m("cash from investing", _CF, [
        "net cash used in investing activities", "cash flows from investing activities",
        "net cash provided by used in investing activities",
        "net cash used in provided by investing activities",
        "net cash provided by investing activities", "cash used in investing activities",
        "cash flow from investing activities", "investing cash flow", "net cash from investing activities",
        "net cash flows from investing activities", "cash flows used in investing activities",
        "investing activities",
    ], related=["capital expenditure"]),
    _m("cash from financing", _CF, [
        "net cash used in financing activities", "cash flows from financing activities",
        "net cash provided by used in financing activities",
        "net cash used in provided by financing activities",
        "net cash provided by financing activities", "cash used in financing activities",
        "cash flow from financing activities", "financing cash flow", "net cash from financing activities",
        "net cash flows from financing activities", "cash flows used in financing activities",
        "financing activities",
    ], related=["dividends paid", "share repurchases"]),
    _m("capital expenditure", _CF, [
        "capital expenditure", "capital spending", "capital investment",
        "purchases of property plant and equipment",
        "purchase of property plant and equipment", "purchases of property and equipment",
        "purchase of property and equipment", "payments for property and equipment",
        "payments for property plant and equipment", "additions to property plant and equipment",
        "additions to property and equipment", "expenditures for property plant and equipment",
        "expenditures for property and equipment", "acquisitions of property plant and equipment",
        "acquisition of property plant and equipment", "acquisitions of property and equipment",
        "investments in property plant and equipment", "capital additions", "purchases of pp&e",
        "payments for acquisition of property plant and equipment", "capital expenditures including",
        "purchases of property equipment and software", "capital outlays", "additions to pp&e",
        "capital asset purchases", "purchases of property plant equipment", "capital spend",
        "property plant and equipment additions", "capital expenditure and investment",
        "purchases of land buildings and equipment", "purchases of land and buildings and equipment",
        "additions to land buildings and equipment", "purchases of premises and equipment",
    ], abbreviations=["capex", "CAPEX", "CapEx"], related=["property plant and equipment", "free cash flow",
                                                            "depreciation and amortization"]),
    _m("free cash flow", _CF, [
        "free cash flow", "free cashflow",
    ], abbreviations=["FCF"], related=["cash from operations", "capital expenditure"],
        formula=_diff("cash from operations", "capital expenditure")),
    _m("free cash flow conversion", _CF, [
        "free cash flow conversion", "free cashflow conversion", "cash conversion", "fcf conversion",
        "free cash flow conversion rate",
    ], related=["free cash flow", "net income"],
        formula=_ratio([_t("free cash flow")], [_t("net income")], unit="%", mult=PERCENT)),
    _m("dividends paid", _CF, [
        "dividends paid", "cash dividends paid", "payments of dividends", "dividends paid to shareholders",
        "dividends paid to stockholders", "dividend payments", "cash dividends", "payment of dividends",
        "dividends paid to shareowners", "dividends to shareholders", "dividends",
        "dividends on common stock",
        "dividends declared", "cash dividends to shareholders",
    ], related=["dividends per share", "dividend payout ratio"]),
    _m("share repurchases", _CF, [
        "share repurchase", "repurchases of common stock", "repurchase of common stock", "stock repurchase",
        "purchases of treasury stock", "purchase of treasury stock", "buyback", "share buyback",
        "stock buyback", "payments for repurchase of common stock", "common stock repurchased",
        "treasury stock purchases", "repurchases of shares", "repurchase of shares",
        "share repurchase program",
        "purchases of company stock", "purchase of common stock", "repurchased shares", "shares repurchased",
        "repurchases of common shares",
    ], related=["dividends paid", "treasury stock"]),
    _m("acquisitions", _CF, [
        "acquisitions net of cash acquired", "acquisition of businesses", "acquisitions of businesses",
        "business acquisition", "purchase of businesses", "acquisitions", "acquisition",
        "mergers and acquisitions",
        "payments for acquisitions", "cash paid for acquisitions",
    ], abbreviations=["M&A"], related=["goodwill"]),
    _m("debt issuance", _CF, [
        "proceeds from issuance of long term debt", "proceeds from long term debt",
        "proceeds from borrowings",
        "proceeds from issuance of debt", "issuance of long term debt", "proceeds from debt", "debt issuance",
        "proceeds from issuances of long term debt",
    ], related=["total debt", "debt repayment"]),
    _m("debt repayment", _CF, [
        "repayments of long term debt", "repayment of long term debt", "payments of long term debt",
        "repayments of debt", "repayment of debt", "principal payments on debt", "payments on long term debt",
        "retirement of long term debt", "payments of debt",
    ], related=["total debt", "debt issuance"]),
    _m("capex to revenue", _CF, [
        "capex to revenue", "capital expenditure as a percentage of revenue",
        "capex as a percentage of revenue",
        "capex as a percentage of sales", "capital expenditure to sales", "capital expenditure to revenue",
        "capital intensity", "capital intensive", "capex intensity", "capital expenditure intensity",
    ], related=["capital expenditure", "revenue"],
        formula=_ratio([_t("capital expenditure")], [_t("revenue")], unit="%", mult=PERCENT)),
    _m("dividend payout ratio", _CF, [
        "dividend payout ratio", "payout ratio", "dividend payout",
    ], related=["dividends paid", "net income"],
        formula=_ratio([_t("dividends paid")], [_t("net income attributable to shareholders")], unit="%",
                       mult=PERCENT)),
    _m("retention ratio", _CF, [
        "retention ratio", "earnings retention ratio", "plowback ratio",
    ], related=["dividend payout ratio"],
        formula=_ratio([_t("net income attributable to shareholders"), _t("dividends paid", -1)],
                       [_t("net income attributable to shareholders")], unit="%", mult=PERCENT)),
    _m("operating cash flow ratio", _LIQ, [
        "operating cash flow ratio", "cash flow ratio", "cash flow coverage ratio",
    ], related=["cash from operations", "current liabilities"],
        formula=_ratio([_t("cash from operations")], [_t("current liabilities")])),
    # --- Balance sheet ------------------------------------------------------------------------------------
    _m("total assets", _BS, ["total assets", "assets total", "total consolidated assets"],
       related=["return on assets", "total liabilities and equity"]),
    _m("total liabilities", _BS, ["total liabilities", "liabilities total", "total consolidated liabilities"],
       related=["total liabilities and equity"]),
    _m("total liabilities and equity", _BS, [
        "total liabilities and equity", "total liabilities and shareholders equity",
        "total liabilities and stockholders equity", "total liabilities and shareowners equity",
        "total liabilities equity", "total liabilities and shareholders investment",
        "total liabilities redeemable noncontrolling interest and equity",
    ], related=["total assets", "total liabilities"]),
    _m("current assets", _BS, ["current assets", "total current assets"],
       related=["working capital", "current ratio"]),
    _m("current liabilities", _BS, ["current liabilities", "total current liabilities"],
       related=["working capital", "current ratio"]),
    _m("cash and cash equivalents", _BS, [
        "cash and cash equivalents", "cash and equivalents", "cash cash equivalents and restricted cash",
        "cash and cash equivalents and restricted cash", "cash and short term investments",
        "cash cash equivalents and marketable securities", "cash cash equivalents and short term investments",
        "cash balance", "cash on hand", "cash and marketable securities", "cash and due from banks",
    ], related=["short term investments", "net debt"]),
    _m("short term investments", _BS, [
        "short term investments", "marketable securities", "short term marketable securities",
        "available for sale securities", "available for sale debt securities", "investment securities",
        "held to maturity securities", "trading securities",
    ], related=["cash and cash equivalents"]),
    _m("accounts receivable", _BS, [
        "accounts receivable", "receivables", "trade receivables", "accounts receivable net",
        "trade accounts receivable", "notes and accounts receivable", "accounts and notes receivable",
        "receivable", "accounts receivable trade", "trade receivable",
    ], abbreviations=["A/R"], related=["days sales outstanding", "receivables turnover"]),
    _m("inventories", _BS, [
        "inventories", "inventory", "merchandise inventories", "merchandise inventory", "total inventories",
        "inventories net", "inventory net", "finished goods", "raw materials", "work in process",
    ], related=["inventory turnover", "days inventory outstanding"]),
    _m("accounts payable", _BS, [
        "accounts payable", "trade payables", "trade accounts payable", "accounts payable trade",
        "accounts payable and accrued liabilities", "accounts payable and other current liabilities",
        "payables", "trade payable", "accounts payable and accrued expenses",
    ], abbreviations=["A/P"], related=["days payable outstanding"]),
    _m("accrued liabilities", _BS, [
        "accrued liabilities", "accrued expenses", "accrued and other current liabilities",
        "other accrued liabilities", "accrued compensation", "accrued expenses and other liabilities",
    ], related=["current liabilities"]),
    _m("prepaid expenses", _BS, [
        "prepaid expenses", "prepaid expenses and other current assets", "prepaids", "other current assets",
    ], related=["current assets"]),
    _m("property plant and equipment", _BS, [
        "property plant and equipment", "property plant and equipment net",
        "net property plant and equipment",
        "property and equipment", "property and equipment net", "net property and equipment", "ppne",
        "net ppne", "net ppe", "fixed assets", "net fixed assets", "property plant equipment",
        "total property plant and equipment", "property equipment and software", "long lived assets",
        "property plant and equipment at cost", "plant and equipment",
    ], abbreviations=["PP&E", "net PP&E"],
        related=["capital expenditure", "fixed asset turnover", "depreciation"]),
    _m("goodwill", _BS, ["goodwill", "goodwill net"], related=["intangible assets", "goodwill impairment"]),
    _m("intangible assets", _BS, [
        "intangible assets", "other intangible assets", "intangibles", "intangible assets net",
        "identifiable intangible assets", "acquired intangible assets", "other intangible assets net",
    ], related=["goodwill", "amortization of intangible assets"]),
    _m("deferred revenue", _BS, [
        "deferred revenue", "unearned revenue", "contract liability",
        "deferred revenue and customer advances",
        "customer advances", "advances from customers",
    ], related=["revenue recognition"]),
    _m("deferred income taxes", _BS, [
        "deferred income taxes", "deferred tax assets", "deferred tax liabilities", "deferred taxes",
        "deferred income tax", "valuation allowance", "net operating loss carryforward",
        "operating loss carryforward", "tax loss carryforward",
    ], related=["income tax expense"]),
    _m("long term debt", _LEV, [
        "long term debt", "long term borrowings", "long term debt net of current portion",
        "long term debt excluding current portion", "long term debt less current portion",
        "long term debt due after one year", "senior notes", "notes payable", "long term obligations",
        "term loan", "bonds payable", "long term debt noncurrent",
    ], related=["total debt", "short term debt"]),
    _m("short term debt", _LEV, [
        "short term debt", "short term borrowings", "current portion of long term debt",
        "current maturities of long term debt", "debt maturing within one year", "commercial paper",
        "current portion of debt", "notes payable current", "short term obligations",
        "debt due within one year",
        "long term debt current portion", "current debt",
    ], related=["total debt", "long term debt"]),
    _m("total debt", _LEV, [
        "total debt", "total borrowings", "debt", "borrowings", "indebtedness", "debt outstanding",
        "total debt outstanding", "debt obligations", "gross debt", "outstanding debt",
    ], related=["long term debt", "short term debt", "net debt", "debt to equity ratio"],
        formula=_sum(_t("long term debt"), _t("short term debt"))),
    _m("net debt", _LEV, ["net debt", "net indebtedness", "net borrowings"],
       related=["total debt", "cash and cash equivalents"],
       formula=_diff("total debt", "cash and cash equivalents")),
    _m("lease liabilities", _LEV, [
        "lease liabilities", "operating lease liabilities", "finance lease liabilities", "lease obligations",
        "operating lease obligations", "finance lease obligations", "operating lease right of use assets",
        "right of use assets", "capital lease obligations",
    ], related=["total debt"]),
    _m("contractual obligations", _LIQ, [
        "contractual obligations", "debt maturities", "scheduled maturities", "future minimum payments",
        "purchase obligations", "maturities of long term debt", "contractual cash obligations",
        "commitments and contingencies", "commitments",
    ], related=["total debt", "lease liabilities"]),
    _m("pension obligations", _BS, [
        "pension obligation", "pension benefit obligation", "projected benefit obligation",
        "pension and postretirement benefits", "postretirement benefits", "pension plan",
        "accumulated benefit obligation", "expected benefit payments", "benefit payments",
        "pension and other postretirement benefits", "defined benefit plan", "retiree benefits",
        "other postretirement benefits", "pension", "postretirement benefit plans", "retirees",
    ], related=["total liabilities"]),
    _m("shareholders equity", _BS, [
        "shareholders equity", "stockholders equity", "total equity", "total shareholders equity",
        "total stockholders equity", "shareowners equity", "total shareowners equity", "shareholder equity",
        "stockholder equity", "equity attributable to", "book value", "total shareholders investment",
        "common shareholders equity", "net worth",
    ], related=["return on equity", "debt to equity ratio", "retained earnings"]),
    _m("retained earnings", _BS, [
        "retained earnings", "accumulated deficit", "reinvested earnings",
        "earnings reinvested in the business",
        "retained earnings accumulated deficit",
    ], related=["shareholders equity"]),
    _m("treasury stock", _BS, ["treasury stock", "treasury shares", "shares held in treasury"],
       related=["share repurchases"]),
    _m("noncontrolling interest", _BS, [
        "noncontrolling interest", "non controlling interest", "minority interest",
        "noncontrolling interests",
    ], related=["shareholders equity"]),
    _m("working capital", _LIQ, ["working capital", "net working capital"],
       related=["current assets", "current liabilities", "current ratio"],
       formula=_diff("current assets", "current liabilities")),
    # --- Liquidity ----------------------------------------------------------------------------------------
    _m("current ratio", _LIQ, ["current ratio", "working capital ratio"],
       related=["working capital", "quick ratio"],
       formula=_ratio([_t("current assets")], [_t("current liabilities")])),
    _m("quick ratio", _LIQ, ["quick ratio", "acid test ratio", "acid test"],
       related=["current ratio", "cash ratio"],
       formula=_ratio([_t("current assets"), _t("inventories", -1)], [_t("current liabilities")])),
    _m("cash ratio", _LIQ, ["cash ratio"], related=["quick ratio"],
       formula=_ratio([_t("cash and cash equivalents"), _t("short term investments")],
                      [_t("current liabilities")])),
    _m("days sales outstanding", _LIQ, [
        "days sales outstanding", "days sales in receivables", "receivable days",
        "days receivable outstanding",
        "average collection period", "days sales outstanding ratio",
    ], abbreviations=["DSO"], related=["accounts receivable", "receivables turnover"],
        formula=_days("accounts receivable", "revenue")),
    _m("days inventory outstanding", _LIQ, [
        "days inventory outstanding", "days sales of inventory", "days inventory on hand", "inventory days",
        "days in inventory", "days of inventory on hand",
    ], abbreviations=["DIO", "DSI"], related=["inventories", "inventory turnover"],
        formula=_days("inventories", "cost of goods sold")),
    _m("days payable outstanding", _LIQ, [
        "days payable outstanding", "days payables outstanding", "payable days", "days purchases outstanding",
    ], abbreviations=["DPO"], related=["accounts payable", "payables turnover"],
        formula=_days("accounts payable", "cost of goods sold")),
    _m("cash conversion cycle", _LIQ, [
        "cash conversion cycle", "cash cycle", "net operating cycle", "cash to cash cycle",
    ], abbreviations=["CCC"], related=["days sales outstanding", "days inventory outstanding",
                                       "days payable outstanding"],
        formula=Formula(kind=FormulaKind.SUM, numerator=[
            _t("days inventory outstanding"), _t("days sales outstanding"),
            _t("days payable outstanding", -1)],
            unit="days")),
    _m("inventory turnover", _LIQ, [
        "inventory turnover", "inventory turnover ratio", "inventory turns", "stock turnover",
    ], related=["inventories", "days inventory outstanding"],
        formula=_turnover("cost of goods sold", "inventories")),
    _m("receivables turnover", _LIQ, [
        "receivables turnover", "accounts receivable turnover", "receivable turnover", "debtors turnover",
    ], related=["accounts receivable", "days sales outstanding"],
        formula=_turnover("revenue", "accounts receivable")),
    _m("payables turnover", _LIQ, [
        "payables turnover", "accounts payable turnover", "payable turnover", "creditors turnover",
    ], related=["accounts payable", "days payable outstanding"],
        formula=_turnover("cost of goods sold", "accounts payable")),
    _m("liquidity", _LIQ, [
        "liquidity", "liquidity position", "liquidity profile", "sources of liquidity", "available liquidity",
        "liquidity and capital resources", "capital resources",
    ], related=["cash and cash equivalents", "credit facility", "current ratio"]),
    _m("credit facility", _LIQ, [
        "credit facility", "revolving credit facility", "credit agreement", "revolving credit agreement",
        "line of credit", "revolver", "credit line", "lines of credit", "revolving credit",
        "commercial paper program", "borrowing capacity", "committed credit facilities",
    ], related=["liquidity", "total debt"]),
    # --- Leverage -----------------------------------------------------------------------------------------
    _m("debt to equity ratio", _LEV, [
        "debt to equity ratio", "debt to equity", "debt equity ratio", "debt to shareholders equity",
        "debt to capital ratio", "debt to total capital", "debt to capitalization", "gearing",
    ], abbreviations=["D/E"], related=["total debt", "shareholders equity"],
        formula=_ratio([_t("total debt")], [_t("shareholders equity")])),
    _m("debt ratio", _LEV, ["debt ratio", "debt to assets", "debt to asset ratio", "liabilities to assets"],
       related=["total debt", "total assets"],
       formula=_ratio([_t("total liabilities")], [_t("total assets")])),
    _m("interest coverage ratio", _LEV, [
        "interest coverage ratio", "interest coverage", "times interest earned", "interest cover",
        "fixed charge coverage ratio",
    ], related=["ebit", "interest expense"],
        formula=_ratio([_t("ebit")], [_t("interest expense")])),
    _m("leverage ratio", _LEV, [
        "leverage ratio", "debt to ebitda", "net debt to ebitda", "net leverage ratio", "net leverage",
        "debt to ebitda ratio", "total leverage ratio", "financial leverage",
    ], related=["total debt", "ebitda"],
        formula=_ratio([_t("total debt")], [_t("ebitda")])),
    _m("credit rating", _LEV, [
        "credit rating", "credit ratings", "debt rating", "investment grade", "rating agencies",
    ], related=["total debt"]),
    # --- Tax ----------------------------------------------------------------------------------------------
    _m("effective tax rate", _PROF, [
        "effective tax rate", "effective income tax rate", "tax rate",
        "effective tax rates", "effective income tax rates",
    ], abbreviations=["ETR"], related=["income tax expense", "pretax income"],
        formula=_ratio([_t("income tax expense")], [_t("pretax income")], unit="%", mult=PERCENT)),
    # --- Guidance -----------------------------------------------------------------------------------------
    _m("guidance", _GUID, [
        "guidance", "outlook", "financial outlook", "full year guidance", "full year outlook", "forecast",
        "fiscal year outlook", "annual guidance", "guidance range", "projections",
    ], related=["revenue growth", "earnings per share"]),
    # --- Risk ---------------------------------------------------------------------------------------------
    _m("legal proceedings", _RISK, [
        "legal proceedings", "litigation", "lawsuit", "legal matters", "legal proceeding", "class action",
        "contingent liabilities", "loss contingencies", "product liability",
        "legal battle", "legal dispute", "legal action", "legal claim",
    ], related=["contractual obligations"], kind="topic"),
    _m("customer concentration", _RISK, [
        "customer concentration", "major customer", "significant customer", "largest customer",
        "concentration of credit risk", "concentration of risk", "single customer", "principal customer",
        "primary customer",
    ], related=["revenue"], kind="topic"),
    _m("cybersecurity", _RISK, [
        "cybersecurity", "cyber security", "cyber attack", "cyberattack", "data breach",
        "information security",
    ], kind="topic"),
    _m("foreign exchange exposure", _RISK, [
        "foreign exchange", "foreign currency", "currency exchange rates", "foreign currency exchange rates",
        "foreign exchange risk", "currency risk", "foreign currency risk", "translation impact",
        "currency translation", "foreign exchange rate", "fx impact",
    ], abbreviations=["FX"], related=["derivative instruments"], kind="topic"),
    _m("interest rate risk", _RISK, [
        "interest rate risk", "interest rate exposure", "changes in interest rates",
        "interest rate sensitivity",
    ], related=["derivative instruments", "total debt"], kind="topic"),
    _m("derivative instruments", _RISK, [
        "derivative instrument", "derivatives", "notional amount", "interest rate swap",
        "foreign exchange contract",
        "forward contract", "hedging instrument", "cash flow hedge", "fair value hedge",
        "net investment hedge",
        "hedge", "cross currency swap", "notional value",
    ], related=["foreign exchange exposure", "interest rate risk"], kind="topic"),
    _m("risk factors", _RISK,
       ["risk factors", "principal risks", "material risks", "risks and uncertainties"], kind="topic"),
    _m("cyclicality", _RISK, [
        "cyclicality", "cyclical", "seasonality", "seasonal", "economic downturn", "business cycle",
    ], kind="topic"),
    _m("going concern", _RISK, ["going concern", "substantial doubt"], kind="topic"),
    # --- Other --------------------------------------------------------------------------------------------
    _m("market capitalization", _OTHER, [
        "market capitalization", "market cap", "aggregate market value", "market value of common equity",
        "market value of voting stock",
    ], related=["share price"]),
    _m("share price", _OTHER,
       ["share price", "stock price", "closing price", "price per share", "market price"],
       related=["market capitalization"]),
    _m("enterprise value", _OTHER, ["enterprise value"], abbreviations=["EV"]),
    _m("employees", _OTHER, [
        "employees", "headcount", "number of employees", "full time employees", "workforce", "human capital",
        "team members", "full time equivalent employees",
        # The verb with a count after it: "We employed approximately 315,000 people worldwide".
        "employed approximately", "employs approximately", "employ approximately", "employed about",
        "employs about", "employ about", "employed a total of", "employs a total of",
    ]),
    _m("geographic footprint", _OTHER, [
        "geographies", "geographic areas", "geographic regions", "geographic markets", "geographic footprint",
        "countries and territories", "geographic information", "geographic segments", "regions we operate",
    ], related=["geographic revenue"], kind="topic"),
    _m("cash flow", _CF, ["cash flow", "cash flows", "cashflow"],
       related=["cash from operations", "cash from investing", "cash from financing", "free cash flow"]),
    # --- Financial statements: named in questions as sources ("shown in the balance sheet"); matched so their
    # words are not read as metrics ("cash flow statement" is not cash flow), reported only on request.
    _m("income statement", _OTHER, [
        "income statement", "statement of income", "statements of income", "statement of operations",
        "statements of operations", "statement of earnings", "statements of earnings",
        "profit and loss statement",
        "profit and loss", "statement of comprehensive income", "consolidated statements of income",
        "p&l statement", "consolidated statement of income", "consolidated statements of operations",
        "statement of profit or loss",
    ], abbreviations=["P&L"], kind="statement"),
    _m("balance sheet", _OTHER, [
        "balance sheet", "statement of financial position", "statements of financial position",
        "consolidated balance sheet", "statement of financial condition", "statement of condition",
    ], kind="statement"),
    _m("cash flow statement", _OTHER, [
        "cash flow statement", "statement of cash flows", "statements of cash flows",
        "statement of cash flow",
        "cash flows statement", "consolidated statements of cash flows",
        "consolidated statement of cash flows",
    ], kind="statement"),
    _m("statement of shareholders equity", _OTHER, [
        "statement of shareholders equity", "statements of shareholders equity",
        "statement of stockholders equity",
        "statements of stockholders equity", "statement of changes in equity", "statement of equity",
        "statements of changes in shareholders equity", "statement of shareowners equity",
    ], kind="statement"),
    _m("registered securities", _OTHER, [
        "registered securities", "securities registered pursuant to section 12 b", "trading symbol",
        "name of each exchange on which registered", "title of each class", "national securities exchange",
    ], related=["total debt"], kind="topic"),
    _m("products and services", _OTHER, [
        "products and services", "product categories", "product lines", "principal products",
        "product portfolio",
        "service offerings", "product category", "product line", "brands",
    ], related=["segment revenue"], kind="topic"),
    _m("board and executives", _OTHER, [
        "board of directors", "chief executive officer", "executive officers", "director nominees",
        "election of directors", "shareholder proposal", "annual meeting", "votes cast", "broker non votes",
    ], kind="topic"),
]


# Names of a metric that name a narrower figure: one kind or component of it ('senior notes', 'finished goods'),
# a figure beside it ('net interest margin', 'deferred tax assets') or a wider one ('cash and marketable
# securities'). They stay names of the metric, so a question using one finds the metric's tables, but a figure
# answers such a question only when its own row, column or headings say the name: the company's total long-term
# debt is no figure of its senior notes.
_KINDS: dict[str, list[str]] = {
    "cost of goods sold": ["cost of products", "cost of services"],
    "interest expense": ["interest paid"],
    "restructuring costs": ["severance"],
    "provision for credit losses": ["net write off rate", "net write offs"],
    "comprehensive income": ["other comprehensive income", "accumulated other comprehensive income"],
    "shares outstanding": [
        "weighted average shares outstanding", "weighted average number of shares", "weighted average common shares",
        "diluted shares", "basic shares", "weighted average shares", "weighted average diluted shares",
    ],
    "book value per share": ["tangible book value per share"],
    "dividends paid": ["dividends declared"],
    "cash and cash equivalents": [
        "cash cash equivalents and restricted cash", "cash and cash equivalents and restricted cash",
        "cash and short term investments", "cash cash equivalents and marketable securities",
        "cash cash equivalents and short term investments", "cash and marketable securities", "cash and due from banks",
    ],
    "short term investments": [
        "available for sale securities", "available for sale debt securities", "held to maturity securities",
        "trading securities",
    ],
    "inventories": ["finished goods", "raw materials", "work in process"],
    "accounts payable": [
        "accounts payable and accrued liabilities", "accounts payable and other current liabilities",
        "accounts payable and accrued expenses",
    ],
    "accrued liabilities": ["accrued compensation"],
    "prepaid expenses": ["other current assets"],
    "deferred revenue": ["customer advances", "advances from customers"],
    "deferred income taxes": [
        "deferred tax assets", "deferred tax liabilities", "valuation allowance", "net operating loss carryforward",
        "operating loss carryforward", "tax loss carryforward",
    ],
    "long term debt": ["senior notes", "notes payable", "term loan", "bonds payable"],
    "short term debt": [
        "current portion of long term debt", "current maturities of long term debt", "commercial paper",
        "long term debt current portion",
    ],
    "lease liabilities": [
        "operating lease liabilities", "finance lease liabilities", "operating lease obligations",
        "finance lease obligations", "operating lease right of use assets", "right of use assets",
        "capital lease obligations",
    ],
    "contractual obligations": ["debt maturities", "purchase obligations", "maturities of long term debt"],
    "pension obligations": [
        "projected benefit obligation", "accumulated benefit obligation", "expected benefit payments",
        "benefit payments", "postretirement benefits", "other postretirement benefits",
    ],
    "leverage ratio": ["net debt to ebitda", "net leverage ratio", "net leverage"],
    "debt to equity ratio": ["debt to capital ratio", "debt to total capital", "debt to capitalization"],
    "interest coverage ratio": ["fixed charge coverage ratio"],
}
for _d in _DEFS:
    _d.kinds = _KINDS.get(_d.canonical, [])
    if set(_d.kinds) - set(_d.synonyms):
        raise ValueError(f"lexicon: kinds of {_d.canonical!r} that are no names of it: {set(_d.kinds) - set(_d.synonyms)}")
if set(_KINDS) - {_d.canonical for _d in _DEFS}:
    raise ValueError(f"lexicon: kinds of unknown metrics: {set(_KINDS) - {_d.canonical for _d in _DEFS}}")

METRICS: dict[str, MetricDef] = {d.canonical: d for d in _DEFS}


TOPICS: tuple[str, ...] = (
    "Revenue",
    "Costs/Expenses",
    "Profitability",
    "Liquidity",
    "Leverage",
    "Cash Flow",
    "Balance Sheet",
    "Per Share",
    "Guidance",
    "Risk",
    "Other",
)


# Non-metric words that still tell a question's or chunk's topic (used when no metric is named).
TOPIC_CUES: dict[str, tuple[str, ...]] = {
    "Risk": ("risk", "risks", "uncertaint", "exposure", "contingenc", "litigation", "cyber", "regulat"),
    "Guidance": ("guidance", "outlook", "forecast", "expect", "anticipate", "project", "target"),
    "Liquidity": ("liquidity", "liquid", "cash position", "solvency", "credit facility"),
    "Leverage": ("debt", "leverage", "borrow", "notes due", "indebtedness"),
    "Revenue": ("revenue", "sales", "customers", "pricing", "demand", "products", "segment"),
    "Costs/Expenses": ("cost", "costs", "expense", "expenses", "spend", "inflation"),
    "Profitability": ("profit", "margin", "earnings", "income"),
    "Cash Flow": ("cash flow", "dividend", "repurchase", "capital expenditure", "capex"),
    "Balance Sheet": ("balance sheet", "assets", "liabilities", "equity"),
    "Per Share": ("per share", "eps", "shares"),
}


def is_expectation(metric: str) -> bool:
    """A metric that says a figure is one the company expects ('outlook', 'guidance'): named after another metric
    ('net sales outlook'), it is that figure's basis, not a part of it."""
    return metric in METRICS and METRICS[metric].topic == _GUID
